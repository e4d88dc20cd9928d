import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '@esign/testing';
import {
  auth,
  baseUrl,
  createAccount,
  dashboardHeaders,
  jsonInit,
  signForm,
  type SignedInUser,
  type TestAccount,
} from './harness';
import { linkIn, newRecipient, pageCall, send, waitForMail } from './send-harness';

interface MediaType {
  schema?: Record<string, unknown>;
}
interface ResponseObject {
  headers?: Record<string, { required?: boolean; schema?: Record<string, unknown> }>;
  /** Absent for a response without a body (204). */
  content?: Record<string, MediaType>;
}
interface OperationObject {
  operationId: string;
  responses: Record<string, ResponseObject>;
}
interface OpenApi {
  openapi: string;
  paths: Record<string, Record<string, OperationObject>>;
  components: { schemas: Record<string, unknown> };
}

const repoRoot = resolve(import.meta.dirname, '../..');
// ajv-formats is CommonJS with a default export.
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => void;

let doc: OpenApi;
let business: TestAccount;
let free: TestAccount;
let pdf: Buffer;

beforeAll(async () => {
  doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as OpenApi;
  [business, free] = await Promise.all([createAccount('business'), createAccount('free')]);
  pdf = await makePdf({ pages: 2 });
});

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op })),
  );

const sandboxToken = () => {
  const text = JSON.stringify(doc.components);
  const token = /svc_sandbox_[A-Za-z0-9_]+/.exec(text)?.[0];
  if (!token) throw new Error('the document does not show the sandbox token');
  return token;
};

const typedSignature = {
  signerName: 'Ada Lovelace',
  signerEmail: 'ada@example.com',
  mode: 'type',
  typedName: 'Ada',
  positions: [{ x: 10, y: 10, page: 1, width: 20 }],
};

/** An envelope ID no envelope has. */
const UNKNOWN_ENVELOPE = 'env_AAAAAAAAAAAAAAAAAAAAAAAA';

/** POST /api/v1/envelopes' (and /api/envelopes') form: a signer with a signature field on `page`, and a cc. */
const envelopeForm = (page = 0): FormData =>
  signForm({
    file: { bytes: pdf, name: 'envelope.pdf' },
    fields: {
      recipients: [
        {
          name: 'Ada Lovelace',
          email: 'ada@example.com',
          role: 'signer',
          order: 1,
          fields: [{ type: 'signature', page, x: 10, y: 10, width: 30 }],
        },
        { name: 'Charles Babbage', email: 'charles@example.com', role: 'cc', order: 2 },
      ],
    },
  });

const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/**
 * Real requests for every operation: each must answer a status its document declares, with the
 * declared headers and a body that matches the declared schema. A new operation needs entries here.
 */

/** Envelopes for the recipient page's operations, made once per run and shared by their calls. */
const envelopeCalls = () => {
  const key = auth(business.apiKey);
  const run = `${Date.now()}`;
  const who = (name: string) => `${name}-${run}@example.com`;
  const typedSig = { mode: 'type', typedName: 'Ada', color: '#111827' };
  const create = async (recipients: unknown[]) => {
    const res = await fetch(`${baseUrl}/api/v1/envelopes`, {
      method: 'POST',
      headers: key,
      body: signForm({ file: { bytes: pdf, name: 'envelope.pdf' }, fields: { recipients } }),
    });
    if (res.status !== 201) throw new Error(`envelope answered ${res.status}: ${await res.text()}`);
    return (await res.json()) as { envelopeId: string; recipients: { recipientId: string }[] };
  };
  const memo = <T>(make: () => Promise<T>) => {
    let made: Promise<T> | undefined;
    return () => (made ??= make());
  };
  /** The link of the `n`th email with an envelope link to `email`. */
  const linkOf = async (email: string, n = 1) => {
    const mails = (await waitForMail(email, undefined, n, 30_000)).filter((m) => /\/e\//.test(m.text));
    const match = /\/e\/([A-Za-z0-9_-]{43})/.exec(mails[n - 1]?.text ?? '');
    if (!match?.[1]) throw new Error(`no envelope link for ${email}`);
    return match[1];
  };
  const signatureField = { type: 'signature', page: 0, x: 10, y: 10, width: 20 };
  // A signer then an approver: open, read, view, sign (after a 400), then approve.
  const main = memo(() =>
    create([
      {
        name: 'Signer',
        email: who('env-signer'),
        role: 'signer',
        order: 1,
        fields: [signatureField, { type: 'text', page: 0, x: 40, y: 10, width: 20, label: 'City' }],
      },
      { name: 'Approver', email: who('env-approver'), role: 'approver', order: 2 },
    ]),
  );
  const signer = memo(async () => (await main(), linkOf(who('env-signer'))));
  const approver = memo(() => linkOf(who('env-approver')));
  const decliner = memo(async () => {
    await create([
      { name: 'Decliner', email: who('env-decliner'), role: 'signer', order: 1, fields: [signatureField] },
    ]);
    return linkOf(who('env-decliner'));
  });
  const coded = memo(async () => {
    await create([
      {
        name: 'Coded',
        email: who('env-coded'),
        role: 'signer',
        order: 1,
        requireEmailCode: true,
        fields: [signatureField],
      },
    ]);
    return linkOf(who('env-coded'));
  });
  const codeOf = async (n: number) => {
    const mails = await waitForMail(who('env-coded'), /^Your code/, n, 30_000);
    const code = /\b(\d{6})\b/.exec(mails[n - 1]?.text ?? '')?.[1];
    if (!code) throw new Error('no code in the email');
    return code;
  };
  // A signer whose turn came and one waiting: resend the first, replace the second.
  const pair = memo(() =>
    create([
      { name: 'First', email: who('env-first'), role: 'signer', order: 1, fields: [signatureField] },
      { name: 'Second', email: who('env-second'), role: 'signer', order: 2, fields: [signatureField] },
    ]),
  );
  const recipientUrl = async (index: number, action: string) => {
    const { envelopeId, recipients } = await pair();
    return `${baseUrl}/api/v1/envelopes/${envelopeId}/recipients/${recipients[index]?.recipientId ?? ''}/${action}`;
  };
  const tampered = 'A'.repeat(43);
  return {
    resendEnvelopeRecipient: [
      {
        name: 'a signer whose turn came',
        send: async () => fetch(await recipientUrl(0, 'resend'), { method: 'POST', headers: key }),
      },
      {
        name: 'a signer still waiting (409)',
        send: async () => fetch(await recipientUrl(1, 'resend'), { method: 'POST', headers: key }),
      },
      {
        name: 'an unknown envelope (404)',
        send: () =>
          fetch(`${baseUrl}/api/v1/envelopes/${UNKNOWN_ENVELOPE}/recipients/rcp_${'A'.repeat(24)}/resend`, {
            method: 'POST',
            headers: key,
          }),
      },
    ],
    replaceEnvelopeRecipient: [
      {
        name: 'a waiting signer',
        send: async () =>
          fetch(
            await recipientUrl(1, 'replace'),
            jsonInit('POST', { name: 'Third', email: who('env-third') }, key),
          ),
      },
      {
        name: 'no email (400)',
        send: async () => fetch(await recipientUrl(1, 'replace'), jsonInit('POST', { name: 'Third' }, key)),
      },
    ],
    openEnvelopePage: [
      { name: 'a live link', send: async () => fetch(`${baseUrl}/e/${await signer()}`) },
      { name: 'a tampered link (404)', send: () => fetch(`${baseUrl}/e/${tampered}`) },
    ],
    getEnvelopeRecipient: [
      { name: 'a live link', send: async () => pageCall('/envelope/api/recipient', await signer()) },
      { name: 'no token (404)', send: () => fetch(`${baseUrl}/envelope/api/recipient`) },
    ],
    getEnvelopeLinkDocument: [
      { name: 'a live link', send: async () => pageCall('/envelope/api/document', await signer()) },
      { name: 'before the code (403)', send: async () => pageCall('/envelope/api/document', await coded()) },
    ],
    recordEnvelopeView: [
      { name: 'a live link', send: async () => pageCall('/envelope/api/view', await signer(), {}) },
    ],
    signEnvelopeThroughLink: [
      {
        name: 'a required field left empty (400)',
        send: async () => pageCall('/envelope/api/sign', await signer(), { signature: typedSig }),
      },
      {
        name: 'a typed signature and the city',
        send: async () =>
          pageCall('/envelope/api/sign', await signer(), { signature: typedSig, values: { '1': 'Lisbon' } }),
      },
      {
        name: 'again (410)',
        send: async () =>
          pageCall('/envelope/api/sign', await signer(), { signature: typedSig, values: { '1': 'Lisbon' } }),
      },
    ],
    approveEnvelopeThroughLink: [
      { name: 'the approver', send: async () => pageCall('/envelope/api/approve', await approver(), {}) },
      { name: 'again (410)', send: async () => pageCall('/envelope/api/approve', await approver(), {}) },
    ],
    declineEnvelopeThroughLink: [
      { name: 'no reason (400)', send: async () => pageCall('/envelope/api/decline', await decliner(), {}) },
      {
        name: 'with a reason',
        send: async () => pageCall('/envelope/api/decline', await decliner(), { reason: 'Not mine' }),
      },
    ],
    requestEnvelopeCode: [
      {
        name: 'a new code',
        send: async () => {
          await coded();
          await codeOf(1);
          return pageCall('/envelope/api/request-code', await coded(), {});
        },
      },
    ],
    verifyEnvelopeCode: [
      {
        name: 'a wrong code (400)',
        send: async () =>
          pageCall('/envelope/api/verify-code', await coded(), {
            code: '000000' === (await codeOf(2)) ? '111111' : '000000',
          }),
      },
      {
        name: 'the right code',
        send: async () => pageCall('/envelope/api/verify-code', await coded(), { code: await codeOf(2) }),
      },
      {
        name: 'an emailed link without a code (409)',
        send: async () => pageCall('/envelope/api/verify-code', await decliner(), { code: '123456' }),
      },
    ],
  };
};

const callsFor = (): Record<string, { name: string; send: () => Promise<Response> }[]> => {
  const key = auth(business.apiKey);
  const idempotencyKey = `conformance-${Date.now()}`;
  let signedAuditId = '';
  let webhookId = '';
  let testEventId = '';
  let signedPdf: Promise<ArrayBuffer> | undefined;
  const dashboardEmail = `conformance${Date.now()}@example.com`;
  const dashboardPassword = 'conformance password';
  let user: SignedInUser | undefined;
  let keyId = '';
  let dashboardAuditId = '';
  let dashboardWebhookId = '';
  let dashboardEventId = '';
  let envelopeId = '';
  let dashboardEnvelopeId = '';
  let dashboardRecipientIds: string[] = [];
  const signedIn = (): SignedInUser => {
    if (!user) throw new Error('signIn runs first');
    return user;
  };
  return {
    signDocument: [
      {
        name: 'a signature',
        send: async () => {
          const res = await fetch(`${baseUrl}/api/v1/sign`, {
            method: 'POST',
            headers: { ...key, 'Idempotency-Key': idempotencyKey },
            body: signForm({ file: { bytes: pdf, name: 'c.pdf' }, fields: typedSignature }),
          });
          signedAuditId = res.headers.get('x-audit-id') ?? '';
          signedPdf = res.clone().arrayBuffer();
          return res;
        },
      },
      {
        name: 'its retry (Idempotent-Replayed)',
        send: () =>
          fetch(`${baseUrl}/api/v1/sign`, {
            method: 'POST',
            headers: { ...key, 'Idempotency-Key': idempotencyKey },
            body: signForm({ file: { bytes: pdf, name: 'c.pdf' }, fields: typedSignature }),
          }),
      },
      {
        name: 'a different request under the same key (409)',
        send: () =>
          fetch(`${baseUrl}/api/v1/sign`, {
            method: 'POST',
            headers: { ...key, 'Idempotency-Key': idempotencyKey },
            body: signForm({
              file: { bytes: pdf, name: 'other.pdf' },
              fields: typedSignature,
            }),
          }),
      },
      {
        name: 'a missing field (400)',
        send: () =>
          fetch(`${baseUrl}/api/v1/sign`, {
            method: 'POST',
            headers: key,
            body: signForm({ file: { bytes: pdf, name: 'c.pdf' }, fields: { signerName: 'A' } }),
          }),
      },
      {
        name: 'no key (401)',
        send: () =>
          fetch(`${baseUrl}/api/v1/sign`, {
            method: 'POST',
            body: signForm({ file: { bytes: pdf, name: 'c.pdf' }, fields: typedSignature }),
          }),
      },
      {
        name: 'a Free account (403)',
        send: () =>
          fetch(`${baseUrl}/api/v1/sign`, {
            method: 'POST',
            headers: auth(free.apiKey),
            body: signForm({ file: { bytes: pdf, name: 'c.pdf' }, fields: typedSignature }),
          }),
      },
    ],
    getSignReference: [
      {
        name: 'as JSON',
        send: () => fetch(`${baseUrl}/api/v1/sign`, { headers: { Accept: 'application/json' } }),
      },
      { name: 'as HTML', send: () => fetch(`${baseUrl}/api/v1/sign`, { headers: { Accept: 'text/html' } }) },
    ],
    listTemplates: [
      { name: 'the list', send: () => fetch(`${baseUrl}/api/v1/templates`, { headers: key }) },
      {
        name: 'the sandbox token (401)',
        send: () => fetch(`${baseUrl}/api/v1/templates`, { headers: auth(sandboxToken()) }),
      },
    ],
    generateTemplate: [
      {
        name: 'an NDA',
        send: () =>
          fetch(
            `${baseUrl}/api/v1/templates/generate`,
            json(
              { slug: 'nda', fields: { partyA: 'Acme', partyB: 'Ada', effectiveDate: '2026-12-01' } },
              key,
            ),
          ),
      },
      {
        name: 'an unknown template (404)',
        send: () => fetch(`${baseUrl}/api/v1/templates/generate`, json({ slug: 'nope', fields: {} }, key)),
      },
      {
        name: 'a missing field (400)',
        send: () =>
          fetch(`${baseUrl}/api/v1/templates/generate`, json({ slug: 'nda', fields: { partyA: 'A' } }, key)),
      },
    ],
    listDocuments: [
      {
        name: 'a page with a search',
        send: () => fetch(`${baseUrl}/api/v1/documents?search=c&limit=5`, { headers: key }),
      },
      {
        name: 'a bad limit (400)',
        send: () => fetch(`${baseUrl}/api/v1/documents?limit=101`, { headers: key }),
      },
    ],
    getDocument: [
      {
        name: 'the document signed above',
        send: () => fetch(`${baseUrl}/api/v1/documents/${signedAuditId}`, { headers: key }),
      },
      {
        name: 'an unknown audit ID (404)',
        send: () => fetch(`${baseUrl}/api/v1/documents/ESG-AAAA-BBBB-CCCC`, { headers: key }),
      },
    ],
    downloadDocument: [
      {
        name: 'the PDF signed above',
        send: () => fetch(`${baseUrl}/api/v1/documents/${signedAuditId}/pdf`, { headers: key }),
      },
      {
        name: 'an unknown audit ID (404)',
        send: () => fetch(`${baseUrl}/api/v1/documents/ESG-AAAA-BBBB-CCCC/pdf`, { headers: key }),
      },
    ],
    createWebhook: [
      {
        name: 'an endpoint',
        send: async () => {
          const res = await fetch(
            `${baseUrl}/api/v1/webhooks`,
            jsonInit('POST', { url: 'http://127.0.0.3:9/hooks', eventTypes: ['document.signed'] }, key),
          );
          webhookId = ((await res.clone().json()) as { webhook: { id: string } }).webhook.id;
          return res;
        },
      },
      {
        name: 'a loopback URL (400)',
        send: () =>
          fetch(
            `${baseUrl}/api/v1/webhooks`,
            jsonInit('POST', { url: 'http://127.0.0.1:9/', eventTypes: ['document.signed'] }, key),
          ),
      },
    ],
    listWebhooks: [
      { name: 'the account’s', send: () => fetch(`${baseUrl}/api/v1/webhooks`, { headers: key }) },
    ],
    getWebhook: [
      {
        name: 'the one created',
        send: () => fetch(`${baseUrl}/api/v1/webhooks/${webhookId}`, { headers: key }),
      },
      {
        name: 'an unknown id (404)',
        send: () => fetch(`${baseUrl}/api/v1/webhooks/wh_nothing`, { headers: key }),
      },
    ],
    updateWebhook: [
      {
        name: 'new event types',
        send: () =>
          fetch(
            `${baseUrl}/api/v1/webhooks/${webhookId}`,
            jsonInit('PATCH', { eventTypes: ['document.signed', 'signing.completed'] }, key),
          ),
      },
      {
        name: 'nothing to change (400)',
        send: () => fetch(`${baseUrl}/api/v1/webhooks/${webhookId}`, jsonInit('PATCH', {}, key)),
      },
    ],
    rotateWebhookSecret: [
      {
        name: 'with the default overlap',
        send: () => fetch(`${baseUrl}/api/v1/webhooks/${webhookId}/rotate-secret`, jsonInit('POST', {}, key)),
      },
    ],
    sendTestWebhook: [
      {
        name: 'to the endpoint',
        send: async () => {
          const res = await fetch(`${baseUrl}/api/v1/webhooks/${webhookId}/test`, {
            method: 'POST',
            headers: key,
          });
          testEventId = ((await res.clone().json()) as { eventId: string }).eventId;
          return res;
        },
      },
    ],
    replayWebhookEvent: [
      {
        name: 'the test event',
        send: () =>
          fetch(`${baseUrl}/api/v1/webhooks/${webhookId}/events/${testEventId}/replay`, {
            method: 'POST',
            headers: key,
          }),
      },
      {
        name: 'an unknown event (404)',
        send: () =>
          fetch(
            `${baseUrl}/api/v1/webhooks/${webhookId}/events/evt_00000000000000000000000000000000/replay`,
            {
              method: 'POST',
              headers: key,
            },
          ),
      },
    ],
    listWebhookDeliveries: [
      {
        name: 'the test event and its replay',
        send: () => fetch(`${baseUrl}/api/v1/webhooks/${webhookId}/deliveries?limit=5`, { headers: key }),
      },
      {
        name: 'a limit out of range (400)',
        send: () => fetch(`${baseUrl}/api/v1/webhooks/${webhookId}/deliveries?limit=0`, { headers: key }),
      },
    ],
    deleteWebhook: [
      {
        name: 'the endpoint',
        send: () => fetch(`${baseUrl}/api/v1/webhooks/${webhookId}`, { method: 'DELETE', headers: key }),
      },
      {
        name: 'again (404)',
        send: () => fetch(`${baseUrl}/api/v1/webhooks/${webhookId}`, { method: 'DELETE', headers: key }),
      },
    ],
    verifyDocument: [
      {
        name: 'the document signed above',
        send: async () => {
          const bytes = Buffer.from((await signedPdf) ?? new ArrayBuffer(0));
          return fetch(`${baseUrl}/api/v1/verify`, {
            method: 'POST',
            body: signForm({ file: { bytes, name: 'c-signed.pdf' } }),
          });
        },
      },
      {
        name: 'an unsigned PDF',
        send: () =>
          fetch(`${baseUrl}/api/v1/verify`, {
            method: 'POST',
            body: signForm({ file: { bytes: pdf, name: 'c.pdf' } }),
          }),
      },
      {
        name: 'not a PDF (400)',
        send: () =>
          fetch(`${baseUrl}/api/v1/verify`, {
            method: 'POST',
            body: signForm({ file: { bytes: Buffer.from('plain text'), name: 'c.txt' } }),
          }),
      },
    ],
    getIssuedDocument: [
      {
        name: 'the document signed above, with a hash',
        send: async () => {
          const bytes = Buffer.from((await signedPdf) ?? new ArrayBuffer(0));
          const hash = createHash('sha256').update(bytes).digest('hex');
          return fetch(`${baseUrl}/api/v1/verify/${signedAuditId}?hash=sha256:${hash}`);
        },
      },
      {
        name: 'an unknown audit ID (404)',
        send: () => fetch(`${baseUrl}/api/v1/verify/ESG-AAAA-BBBB-CCCC`),
      },
    ],
    sandboxSign: [
      {
        name: 'a URL',
        send: () =>
          fetch(
            `${baseUrl}/api/v1/sandbox/sign`,
            json({ document_url: 'https://example.com/a.pdf' }, auth(sandboxToken())),
          ),
      },
      {
        name: 'a declined magic URL',
        send: () =>
          fetch(
            `${baseUrl}/api/v1/sandbox/sign`,
            json({ document_url: 'https://sandbox.example/declined.pdf' }, auth(sandboxToken())),
          ),
      },
      {
        name: 'a 413 magic URL',
        send: () =>
          fetch(
            `${baseUrl}/api/v1/sandbox/sign`,
            json({ document_url: 'https://sandbox.example/too-large.pdf' }, auth(sandboxToken())),
          ),
      },
      {
        name: 'a live key (401)',
        send: () =>
          fetch(`${baseUrl}/api/v1/sandbox/sign`, json({ document_url: 'https://example.com/a.pdf' }, key)),
      },
      {
        name: 'no URL (400)',
        send: () => fetch(`${baseUrl}/api/v1/sandbox/sign`, json({}, auth(sandboxToken()))),
      },
    ],
    signUp: [
      {
        name: 'a new email',
        send: () =>
          fetch(`${baseUrl}/api/auth/sign-up`, json({ email: dashboardEmail, password: dashboardPassword })),
      },
      {
        name: 'a short password (400)',
        send: async () => {
          const res = await fetch(
            `${baseUrl}/api/auth/sign-up`,
            json({ email: dashboardEmail, password: 'short' }),
          );
          expect(res.status).toBe(400);
          return res;
        },
      },
    ],
    signIn: [
      {
        name: 'the right password',
        send: async () => {
          const res = await fetch(
            `${baseUrl}/api/auth/sign-in`,
            json({ email: dashboardEmail, password: dashboardPassword }),
          );
          const body = (await res.clone().json()) as { csrfToken: string };
          const setCookie = res.headers.get('set-cookie') ?? '';
          user = {
            email: dashboardEmail,
            password: dashboardPassword,
            cookie: setCookie.split(';')[0] ?? '',
            csrfToken: body.csrfToken,
            setCookie,
          };
          return res;
        },
      },
      {
        name: 'a wrong password (401)',
        send: () =>
          fetch(`${baseUrl}/api/auth/sign-in`, json({ email: dashboardEmail, password: 'wrong password' })),
      },
      {
        name: 'from another site (403)',
        send: () =>
          fetch(
            `${baseUrl}/api/auth/sign-in`,
            json({ email: dashboardEmail, password: dashboardPassword }, { Origin: 'https://evil.example' }),
          ),
      },
    ],
    requestSignInLink: [
      {
        name: 'an email with an account',
        send: () => fetch(`${baseUrl}/api/auth/sign-in-link`, json({ email: dashboardEmail })),
      },
      {
        name: 'not an email (400)',
        send: () => fetch(`${baseUrl}/api/auth/sign-in-link`, json({ email: 'nope' })),
      },
    ],
    redeemSignInLink: [
      {
        name: 'the emailed token',
        send: async () => {
          const [mail] = await waitForMail(dashboardEmail, /sign-in link/);
          const token = /#\/link\/([A-Za-z0-9_-]{43,128})/.exec(mail?.text ?? '')?.[1] ?? '';
          return fetch(`${baseUrl}/api/auth/sign-in-link/redeem`, json({ token }));
        },
      },
      {
        name: 'a used or unknown token (401)',
        send: () => fetch(`${baseUrl}/api/auth/sign-in-link/redeem`, json({ token: 'A'.repeat(43) })),
      },
      {
        name: 'a malformed token (400)',
        send: () => fetch(`${baseUrl}/api/auth/sign-in-link/redeem`, json({ token: 'short' })),
      },
    ],
    getSession: [
      {
        name: 'signed in',
        send: () => fetch(`${baseUrl}/api/session`, { headers: { Cookie: signedIn().cookie } }),
      },
      { name: 'no cookie (401)', send: () => fetch(`${baseUrl}/api/session`) },
    ],
    listApiKeys: [
      {
        name: 'the keys',
        send: () => fetch(`${baseUrl}/api/keys`, { headers: { Cookie: signedIn().cookie } }),
      },
      { name: 'an API key (401)', send: () => fetch(`${baseUrl}/api/keys`, { headers: key }) },
    ],
    createApiKey: [
      {
        name: 'a named key',
        send: async () => {
          const res = await fetch(
            `${baseUrl}/api/keys`,
            jsonInit('POST', { name: 'conformance' }, dashboardHeaders(signedIn())),
          );
          keyId = ((await res.clone().json()) as { id: string }).id;
          return res;
        },
      },
      {
        name: 'without the CSRF token (403)',
        send: () =>
          fetch(`${baseUrl}/api/keys`, jsonInit('POST', {}, { Cookie: signedIn().cookie, Origin: baseUrl })),
      },
      {
        name: 'a name too long (400)',
        send: () =>
          fetch(
            `${baseUrl}/api/keys`,
            jsonInit('POST', { name: 'n'.repeat(101) }, dashboardHeaders(signedIn())),
          ),
      },
    ],
    revokeApiKey: [
      {
        name: 'the key created above',
        send: () =>
          fetch(`${baseUrl}/api/keys?id=${keyId}`, {
            method: 'DELETE',
            headers: dashboardHeaders(signedIn()),
          }),
      },
      {
        name: 'an unknown id (404)',
        send: () =>
          fetch(`${baseUrl}/api/keys?id=${crypto.randomUUID()}`, {
            method: 'DELETE',
            headers: dashboardHeaders(signedIn()),
          }),
      },
      {
        name: 'a malformed id (400)',
        send: () =>
          fetch(`${baseUrl}/api/keys?id=42`, { method: 'DELETE', headers: dashboardHeaders(signedIn()) }),
      },
    ],
    listDashboardWebhooks: [
      {
        name: 'the account’s',
        send: () => fetch(`${baseUrl}/api/webhooks`, { headers: { Cookie: signedIn().cookie } }),
      },
      { name: 'an API key (401)', send: () => fetch(`${baseUrl}/api/webhooks`, { headers: key }) },
    ],
    createDashboardWebhook: [
      {
        name: 'an endpoint',
        send: async () => {
          const res = await fetch(
            `${baseUrl}/api/webhooks`,
            jsonInit(
              'POST',
              { url: 'http://127.0.0.3:9/hooks', eventTypes: ['document.signed'] },
              dashboardHeaders(signedIn()),
            ),
          );
          dashboardWebhookId = ((await res.clone().json()) as { webhook: { id: string } }).webhook.id;
          return res;
        },
      },
      {
        name: 'without the CSRF token (403)',
        send: () =>
          fetch(
            `${baseUrl}/api/webhooks`,
            jsonInit(
              'POST',
              { url: 'http://127.0.0.3:9/hooks', eventTypes: ['document.signed'] },
              { Cookie: signedIn().cookie, Origin: baseUrl },
            ),
          ),
      },
    ],
    getDashboardWebhook: [
      {
        name: 'the one created',
        send: () =>
          fetch(`${baseUrl}/api/webhooks/${dashboardWebhookId}`, { headers: { Cookie: signedIn().cookie } }),
      },
    ],
    updateDashboardWebhook: [
      {
        name: 'disabled',
        send: () =>
          fetch(
            `${baseUrl}/api/webhooks/${dashboardWebhookId}`,
            jsonInit('PATCH', { enabled: false }, dashboardHeaders(signedIn())),
          ),
      },
      {
        name: 'enabled again',
        send: () =>
          fetch(
            `${baseUrl}/api/webhooks/${dashboardWebhookId}`,
            jsonInit('PATCH', { enabled: true }, dashboardHeaders(signedIn())),
          ),
      },
    ],
    rotateDashboardWebhookSecret: [
      {
        name: 'with no overlap',
        send: () =>
          fetch(
            `${baseUrl}/api/webhooks/${dashboardWebhookId}/rotate-secret`,
            jsonInit('POST', { overlapHours: 0 }, dashboardHeaders(signedIn())),
          ),
      },
    ],
    sendTestDashboardWebhook: [
      {
        name: 'to the endpoint',
        send: async () => {
          const res = await fetch(`${baseUrl}/api/webhooks/${dashboardWebhookId}/test`, {
            method: 'POST',
            headers: dashboardHeaders(signedIn()),
          });
          dashboardEventId = ((await res.clone().json()) as { eventId: string }).eventId;
          return res;
        },
      },
    ],
    replayDashboardWebhookEvent: [
      {
        name: 'the test event',
        send: () =>
          fetch(`${baseUrl}/api/webhooks/${dashboardWebhookId}/events/${dashboardEventId}/replay`, {
            method: 'POST',
            headers: dashboardHeaders(signedIn()),
          }),
      },
    ],
    listDashboardWebhookDeliveries: [
      {
        name: 'the test event and its replay',
        send: () =>
          fetch(`${baseUrl}/api/webhooks/${dashboardWebhookId}/deliveries`, {
            headers: { Cookie: signedIn().cookie },
          }),
      },
    ],
    setEmbedOrigins: [
      {
        name: 'an origin',
        send: () =>
          fetch(
            `${baseUrl}/api/v1/account/embed-origins`,
            jsonInit('PUT', { origins: ['https://app.example.com'] }, key),
          ),
      },
      {
        name: 'a path (400)',
        send: () =>
          fetch(
            `${baseUrl}/api/v1/account/embed-origins`,
            jsonInit('PUT', { origins: ['https://app.example.com/embed'] }, key),
          ),
      },
    ],
    getEmbedOrigins: [
      {
        name: 'the account’s',
        send: () => fetch(`${baseUrl}/api/v1/account/embed-origins`, { headers: key }),
      },
    ],
    createSigningUrl: [
      {
        name: 'for an embedded signer',
        send: async () => {
          const form = signForm({
            file: { bytes: pdf, name: 'embedded.pdf', type: 'application/pdf' },
            fields: {
              recipients: [
                {
                  name: 'Eve',
                  email: 'eve@example.com',
                  role: 'signer',
                  order: 1,
                  embedded: true,
                  fields: [{ type: 'signature', page: 0, x: 10, y: 70, width: 30 }],
                },
              ],
            },
          });
          const created = (await (
            await fetch(`${baseUrl}/api/v1/envelopes`, { method: 'POST', headers: key, body: form })
          ).json()) as { envelopeId: string; recipients: { recipientId: string }[] };
          return fetch(
            `${baseUrl}/api/v1/envelopes/${created.envelopeId}/recipients/${created.recipients[0]?.recipientId ?? ''}/signing-url`,
            { method: 'POST', headers: key },
          );
        },
      },
      {
        name: 'an unknown envelope (404)',
        send: () =>
          fetch(
            `${baseUrl}/api/v1/envelopes/env_${'x'.repeat(24)}/recipients/rcp_${'x'.repeat(24)}/signing-url`,
            {
              method: 'POST',
              headers: key,
            },
          ),
      },
    ],
    setDashboardEmbedOrigins: [
      {
        name: 'an origin',
        send: () =>
          fetch(
            `${baseUrl}/api/account/embed-origins`,
            jsonInit('PUT', { origins: ['https://shop.example.com'] }, dashboardHeaders(signedIn())),
          ),
      },
    ],
    getDashboardEmbedOrigins: [
      {
        name: 'the account’s',
        send: () => fetch(`${baseUrl}/api/account/embed-origins`, { headers: { Cookie: signedIn().cookie } }),
      },
    ],
    deleteDashboardWebhook: [
      {
        name: 'the endpoint',
        send: () =>
          fetch(`${baseUrl}/api/webhooks/${dashboardWebhookId}`, {
            method: 'DELETE',
            headers: dashboardHeaders(signedIn()),
          }),
      },
      {
        name: 'again (404)',
        send: () =>
          fetch(`${baseUrl}/api/webhooks/${dashboardWebhookId}`, {
            method: 'DELETE',
            headers: dashboardHeaders(signedIn()),
          }),
      },
    ],
    listDashboardDocuments: [
      {
        name: 'a page',
        send: () => fetch(`${baseUrl}/api/documents?limit=5`, { headers: { Cookie: signedIn().cookie } }),
      },
      {
        name: 'a bad sortBy (400)',
        send: () => fetch(`${baseUrl}/api/documents?sortBy=size`, { headers: { Cookie: signedIn().cookie } }),
      },
      { name: 'no session (401)', send: () => fetch(`${baseUrl}/api/documents`) },
    ],
    dashboardSign: [
      {
        name: 'a signature',
        send: async () => {
          const res = await fetch(`${baseUrl}/api/sign`, {
            method: 'POST',
            headers: dashboardHeaders(signedIn()),
            body: signForm({ file: { bytes: pdf, name: 'd.pdf' }, fields: typedSignature }),
          });
          dashboardAuditId = ((await res.clone().json()) as { auditId: string }).auditId;
          return res;
        },
      },
      {
        name: 'no signerName (400)',
        send: () =>
          fetch(`${baseUrl}/api/sign`, {
            method: 'POST',
            headers: dashboardHeaders(signedIn()),
            body: signForm({
              file: { bytes: pdf, name: 'd.pdf' },
              fields: { ...typedSignature, signerName: '' },
            }),
          }),
      },
      {
        name: 'without the CSRF token (403)',
        send: () =>
          fetch(`${baseUrl}/api/sign`, {
            method: 'POST',
            headers: { Cookie: signedIn().cookie, Origin: baseUrl },
            body: signForm({ file: { bytes: pdf, name: 'd.pdf' }, fields: typedSignature }),
          }),
      },
    ],
    getDashboardDocument: [
      {
        name: 'the document signed from the dashboard',
        send: () =>
          fetch(`${baseUrl}/api/documents/${dashboardAuditId}`, { headers: { Cookie: signedIn().cookie } }),
      },
      {
        name: "another account's document (404)",
        send: () =>
          fetch(`${baseUrl}/api/documents/${signedAuditId}`, { headers: { Cookie: signedIn().cookie } }),
      },
    ],
    downloadDashboardDocument: [
      {
        name: 'the signed PDF',
        send: () =>
          fetch(`${baseUrl}/api/documents/${dashboardAuditId}/pdf`, {
            headers: { Cookie: signedIn().cookie },
          }),
      },
      {
        name: 'an unknown audit ID (404)',
        send: () =>
          fetch(`${baseUrl}/api/documents/ESG-AAAA-BBBB-CCCC/pdf`, {
            headers: { Cookie: signedIn().cookie },
          }),
      },
    ],
    listSentRequests: [
      {
        name: 'a page',
        send: () => fetch(`${baseUrl}/api/sends?limit=5`, { headers: { Cookie: signedIn().cookie } }),
      },
      {
        name: 'a bad limit (400)',
        send: () => fetch(`${baseUrl}/api/sends?limit=0`, { headers: { Cookie: signedIn().cookie } }),
      },
    ],
    // Envelopes: the API key's operations, then their dashboard twins (the session of signIn above).
    createEnvelope: [
      {
        name: 'a signer and a cc',
        send: async () => {
          const res = await fetch(`${baseUrl}/api/v1/envelopes`, {
            method: 'POST',
            headers: key,
            body: envelopeForm(),
          });
          envelopeId = ((await res.clone().json()) as { envelopeId: string }).envelopeId;
          return res;
        },
      },
      {
        name: 'a field on a page that does not exist (400)',
        send: () =>
          fetch(`${baseUrl}/api/v1/envelopes`, { method: 'POST', headers: key, body: envelopeForm(5) }),
      },
      {
        name: 'no key (401)',
        send: () => fetch(`${baseUrl}/api/v1/envelopes`, { method: 'POST', body: envelopeForm() }),
      },
    ],
    listEnvelopes: [
      { name: 'a page', send: () => fetch(`${baseUrl}/api/v1/envelopes?limit=5`, { headers: key }) },
      {
        name: 'an unknown status (400)',
        send: () => fetch(`${baseUrl}/api/v1/envelopes?status=lost`, { headers: key }),
      },
    ],
    getEnvelope: [
      {
        name: 'the envelope',
        send: () => fetch(`${baseUrl}/api/v1/envelopes/${envelopeId}`, { headers: key }),
      },
      {
        name: 'an unknown envelope (404)',
        send: () => fetch(`${baseUrl}/api/v1/envelopes/${UNKNOWN_ENVELOPE}`, { headers: key }),
      },
    ],
    getEnvelopeDocument: [
      {
        name: 'the copy marked NOT COMPLETE',
        send: () => fetch(`${baseUrl}/api/v1/envelopes/${envelopeId}/document`, { headers: key }),
      },
      {
        name: 'an unknown envelope (404)',
        send: () => fetch(`${baseUrl}/api/v1/envelopes/${UNKNOWN_ENVELOPE}/document`, { headers: key }),
      },
    ],
    cancelEnvelope: [
      {
        name: 'the pending envelope',
        send: () =>
          fetch(`${baseUrl}/api/v1/envelopes/${envelopeId}/cancel`, { method: 'POST', headers: key }),
      },
      {
        name: 'again (409)',
        send: () =>
          fetch(`${baseUrl}/api/v1/envelopes/${envelopeId}/cancel`, { method: 'POST', headers: key }),
      },
    ],
    createDashboardEnvelope: [
      {
        name: 'a signer and a cc',
        send: async () => {
          const res = await fetch(`${baseUrl}/api/envelopes`, {
            method: 'POST',
            headers: dashboardHeaders(signedIn()),
            body: envelopeForm(),
          });
          const created = (await res.clone().json()) as {
            envelopeId: string;
            recipients: { recipientId: string }[];
          };
          dashboardEnvelopeId = created.envelopeId;
          dashboardRecipientIds = created.recipients.map((r) => r.recipientId);
          return res;
        },
      },
      {
        name: 'without the CSRF token (403)',
        send: () =>
          fetch(`${baseUrl}/api/envelopes`, {
            method: 'POST',
            headers: { Cookie: signedIn().cookie, Origin: baseUrl },
            body: envelopeForm(),
          }),
      },
      {
        name: 'a field on a page that does not exist (400)',
        send: () =>
          fetch(`${baseUrl}/api/envelopes`, {
            method: 'POST',
            headers: dashboardHeaders(signedIn()),
            body: envelopeForm(5),
          }),
      },
    ],
    listDashboardEnvelopes: [
      {
        name: 'a page',
        send: () => fetch(`${baseUrl}/api/envelopes?limit=5`, { headers: { Cookie: signedIn().cookie } }),
      },
      { name: 'no session (401)', send: () => fetch(`${baseUrl}/api/envelopes`) },
    ],
    getDashboardEnvelope: [
      {
        name: 'the envelope',
        send: () =>
          fetch(`${baseUrl}/api/envelopes/${dashboardEnvelopeId}`, {
            headers: { Cookie: signedIn().cookie },
          }),
      },
      {
        name: "another account's (404)",
        send: () =>
          fetch(`${baseUrl}/api/envelopes/${envelopeId}`, { headers: { Cookie: signedIn().cookie } }),
      },
    ],
    getDashboardEnvelopeDocument: [
      {
        name: 'the copy marked NOT COMPLETE',
        send: () =>
          fetch(`${baseUrl}/api/envelopes/${dashboardEnvelopeId}/document`, {
            headers: { Cookie: signedIn().cookie },
          }),
      },
      {
        name: 'an unknown envelope (404)',
        send: () =>
          fetch(`${baseUrl}/api/envelopes/${UNKNOWN_ENVELOPE}/document`, {
            headers: { Cookie: signedIn().cookie },
          }),
      },
    ],
    resendDashboardEnvelopeRecipient: [
      {
        name: 'the signer whose turn came',
        send: () =>
          fetch(
            `${baseUrl}/api/envelopes/${dashboardEnvelopeId}/recipients/${dashboardRecipientIds[0] ?? ''}/resend`,
            { method: 'POST', headers: dashboardHeaders(signedIn()) },
          ),
      },
      {
        name: 'the cc (409)',
        send: () =>
          fetch(
            `${baseUrl}/api/envelopes/${dashboardEnvelopeId}/recipients/${dashboardRecipientIds[1] ?? ''}/resend`,
            { method: 'POST', headers: dashboardHeaders(signedIn()) },
          ),
      },
      {
        name: 'without the CSRF token (403)',
        send: () =>
          fetch(
            `${baseUrl}/api/envelopes/${dashboardEnvelopeId}/recipients/${dashboardRecipientIds[0] ?? ''}/resend`,
            { method: 'POST', headers: { Cookie: signedIn().cookie, Origin: baseUrl } },
          ),
      },
    ],
    replaceDashboardEnvelopeRecipient: [
      {
        name: 'the cc',
        send: () =>
          fetch(
            `${baseUrl}/api/envelopes/${dashboardEnvelopeId}/recipients/${dashboardRecipientIds[1] ?? ''}/replace`,
            jsonInit(
              'POST',
              { name: 'Ada Byron', email: 'ada.byron@example.com' },
              dashboardHeaders(signedIn()),
            ),
          ),
      },
      {
        name: 'no email (400)',
        send: () =>
          fetch(
            `${baseUrl}/api/envelopes/${dashboardEnvelopeId}/recipients/${dashboardRecipientIds[1] ?? ''}/replace`,
            jsonInit('POST', { name: 'Ada Byron' }, dashboardHeaders(signedIn())),
          ),
      },
      {
        name: 'an unknown recipient (404)',
        send: () =>
          fetch(
            `${baseUrl}/api/envelopes/${dashboardEnvelopeId}/recipients/rcp_AAAAAAAAAAAAAAAAAAAAAAAA/replace`,
            jsonInit(
              'POST',
              { name: 'Ada Byron', email: 'ada.byron@example.com' },
              dashboardHeaders(signedIn()),
            ),
          ),
      },
    ],
    cancelDashboardEnvelope: [
      {
        name: 'the pending envelope',
        send: () =>
          fetch(`${baseUrl}/api/envelopes/${dashboardEnvelopeId}/cancel`, {
            method: 'POST',
            headers: dashboardHeaders(signedIn()),
          }),
      },
      {
        name: 'again (409)',
        send: () =>
          fetch(`${baseUrl}/api/envelopes/${dashboardEnvelopeId}/cancel`, {
            method: 'POST',
            headers: dashboardHeaders(signedIn()),
          }),
      },
    ],
    ...sendCalls(key),
    signOut: [
      {
        name: 'signed in',
        send: () =>
          fetch(`${baseUrl}/api/auth/sign-out`, { method: 'POST', headers: dashboardHeaders(signedIn()) }),
      },
      {
        name: 'signed out already (401)',
        send: () =>
          fetch(`${baseUrl}/api/auth/sign-out`, { method: 'POST', headers: dashboardHeaders(signedIn()) }),
      },
    ],
  };
};

/** Send for signing and the signing page: three requests (to sign, to decline, to cancel). */
const sendCalls = (
  key: Record<string, string>,
): Record<string, { name: string; send: () => Promise<Response> }[]> => {
  const people = { a: newRecipient(), b: newRecipient(), c: newRecipient() };
  const sent: Record<string, { sendId: string; auditId: string }> = {};
  const sendTo =
    (who: keyof typeof people, extra: Record<string, string | object> = {}) =>
    async () => {
      const res = await send(business.apiKey, { pdf, recipientEmail: people[who], fields: extra });
      if (res.status === 201) sent[who] = (await res.clone().json()) as { sendId: string; auditId: string };
      return res;
    };
  const tokenOf = async (who: keyof typeof people, emails = 1) =>
    linkIn((await waitForMail(people[who], /^Please sign/, emails)).at(-1)).token;
  const tampered = 'A'.repeat(43);
  const typed = { signerName: 'Ada', signature: { mode: 'type', typedName: 'Ada', color: '#111827' } };
  return {
    sendForSigning: [
      { name: 'a PDF', send: sendTo('a') },
      { name: 'a second one', send: sendTo('b') },
      { name: 'a third one', send: sendTo('c') },
      {
        name: 'a position on a page it does not have (400)',
        send: sendTo('a', { positions: [{ x: 1, y: 1, page: 9, width: 20 }] }),
      },
      {
        name: 'a Free account (403)',
        send: () => send(free.apiKey, { pdf, recipientEmail: people.a }),
      },
    ],
    getSigningStatus: [
      {
        name: 'pending',
        send: () => fetch(`${baseUrl}/api/v1/status?auditId=${sent.a?.auditId}`, { headers: key }),
      },
      {
        name: 'an unknown audit ID (404)',
        send: () => fetch(`${baseUrl}/api/v1/status?auditId=ESG-AAAA-AAAA-AAAA`, { headers: key }),
      },
      { name: 'no ID (400)', send: () => fetch(`${baseUrl}/api/v1/status`, { headers: key }) },
    ],
    resendSend: [
      {
        name: 'the third',
        send: async () => {
          await tokenOf('c');
          return fetch(`${baseUrl}/api/v1/send/${sent.c?.sendId}/resend`, { method: 'POST', headers: key });
        },
      },
      {
        name: 'an unknown sendId (404)',
        send: () =>
          fetch(`${baseUrl}/api/v1/send/send_unknownunknownunknown/resend`, { method: 'POST', headers: key }),
      },
    ],
    cancelSend: [
      {
        name: 'the third',
        send: async () => {
          await tokenOf('c', 2);
          return fetch(`${baseUrl}/api/v1/send/${sent.c?.sendId}/cancel`, { method: 'POST', headers: key });
        },
      },
      {
        name: 'again (409)',
        send: () =>
          fetch(`${baseUrl}/api/v1/send/${sent.c?.sendId}/cancel`, { method: 'POST', headers: key }),
      },
    ],
    openSigningPage: [
      { name: 'a pending link', send: async () => fetch(`${baseUrl}/s/${await tokenOf('a')}`) },
      { name: 'a tampered link (404)', send: () => fetch(`${baseUrl}/s/${tampered}`) },
      { name: 'a canceled link (410)', send: async () => fetch(`${baseUrl}/s/${await tokenOf('c', 2)}`) },
    ],
    getSigningRequest: [
      { name: 'a pending link', send: async () => pageCall('/signing/api/request', await tokenOf('a')) },
      {
        name: 'a canceled link (410)',
        send: async () => pageCall('/signing/api/request', await tokenOf('c', 2)),
      },
      { name: 'no token (404)', send: () => fetch(`${baseUrl}/signing/api/request`) },
    ],
    getSigningDocument: [
      { name: 'a pending link', send: async () => pageCall('/signing/api/document', await tokenOf('a')) },
      { name: 'a tampered link (404)', send: () => pageCall('/signing/api/document', tampered) },
    ],
    recordSigningView: [
      { name: 'a pending link', send: async () => pageCall('/signing/api/view', await tokenOf('a'), {}) },
      {
        name: 'a canceled link (410)',
        send: async () => pageCall('/signing/api/view', await tokenOf('c', 2), {}),
      },
    ],
    declineThroughLink: [
      { name: 'no reason (400)', send: async () => pageCall('/signing/api/decline', await tokenOf('b'), {}) },
      {
        name: 'with a reason',
        send: async () => pageCall('/signing/api/decline', await tokenOf('b'), { reason: 'Not mine' }),
      },
      {
        name: 'again (410)',
        send: async () => pageCall('/signing/api/decline', await tokenOf('b'), { reason: 'Not mine' }),
      },
    ],
    signThroughLink: [
      {
        name: 'an empty signature (400)',
        send: async () =>
          pageCall('/signing/api/sign', await tokenOf('a'), {
            signerName: 'Ada',
            signature: { mode: 'draw', imageBase64: '' },
          }),
      },
      {
        name: 'a typed signature',
        send: async () => pageCall('/signing/api/sign', await tokenOf('a'), typed),
      },
      { name: 'again (410)', send: async () => pageCall('/signing/api/sign', await tokenOf('a'), typed) },
      { name: 'a tampered link (404)', send: () => pageCall('/signing/api/sign', tampered, typed) },
    ],
    ...envelopeCalls(),
  };
};

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document (checked by an independent validator)', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('is the one committed as docs/openapi.json (run `pnpm api:export` after changing an operation)', async () => {
    const committed = JSON.parse(await readFile(resolve(repoRoot, 'docs/openapi.json'), 'utf8')) as unknown;
    expect(doc).toEqual(committed);
  });

  it('documents bearer and sandbox security, rate-limit headers and Idempotency-Key', () => {
    const text = JSON.stringify(doc);
    expect(text).toContain('"sandboxToken"');
    expect(text).toContain('"RateLimit-Remaining"');
    expect(text).toContain('"Retry-After"');
    const sign = doc.paths['/api/v1/sign']?.post as unknown as { parameters: { name: string; in: string }[] };
    expect(sign.parameters).toContainEqual(
      expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }),
    );
  });

  it('describes every answer of every operation, as real requests show', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addFormat('binary', true);
    const calls = callsFor();
    const byId = new Map(operations().map((o) => [o.op.operationId, o]));
    // Every operation of the document is exercised, and nothing here is unknown to the document.
    expect([...byId.keys()].sort()).toEqual(Object.keys(calls).sort());
    const problems: string[] = [];
    const seen = new Set<string>();
    for (const [operationId, list] of Object.entries(calls)) {
      const { op } = byId.get(operationId) ?? {};
      if (!op) continue;
      for (const call of list) {
        const res = await call.send();
        const where = `${operationId} (${call.name}) answered ${res.status}`;
        const declared = op.responses[String(res.status)];
        if (!declared) {
          problems.push(`${where}, which the document does not declare`);
          await res.body?.cancel();
          continue;
        }
        seen.add(`${operationId} ${res.status}`);
        for (const [name, header] of Object.entries(declared.headers ?? {})) {
          if (header.required !== false && !res.headers.has(name)) problems.push(`${where} without ${name}`);
        }
        const type = (res.headers.get('content-type') ?? '').split(';')[0] ?? '';
        if (!declared.content) {
          // A response without a body (204).
          if ((await res.arrayBuffer()).byteLength > 0)
            problems.push(`${where} with a body it does not declare`);
          continue;
        }
        const media = declared.content?.[type];
        if (!media) {
          problems.push(`${where} as ${type}, not one of ${Object.keys(declared.content ?? {}).join(', ')}`);
          await res.body?.cancel();
          continue;
        }
        if (type === 'application/json' && media.schema) {
          const validate = ajv.compile({ ...media.schema, components: doc.components });
          const body: unknown = await res.json();
          if (!validate(body)) problems.push(`${where}: ${ajv.errorsText(validate.errors)}`);
        } else {
          await res.arrayBuffer();
        }
      }
    }
    expect(problems).toEqual([]);
    // Each operation's success answer was among them.
    for (const { op } of operations()) {
      const success = Object.keys(op.responses).filter((s) => s.startsWith('2'));
      for (const status of success) expect(seen).toContain(`${op.operationId} ${status}`);
    }
  });
});
