import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { makePdf, makePng } from '@esign/testing';
import {
  auth,
  baseUrl,
  createAccount,
  dashboardHeaders,
  dataUri,
  errorOf,
  jsonInit,
  sign,
  signUpAndIn,
  storage,
  type TestAccount,
} from './harness';

let account: TestAccount;
let pdf: Buffer;
let fields: Record<string, string>;

beforeAll(async () => {
  account = await createAccount('business');
  pdf = await makePdf({ pages: 1, text: `idempotency ${randomUUID()}` });
  fields = {
    signerName: 'Ada Lovelace',
    signerEmail: 'ada@example.com',
    signatureData: dataUri(await makePng({ width: 300, height: 100 })),
  };
});

const signWithKey = (key: string, bytes = pdf, name = 'retry.pdf', extra: Record<string, string> = {}) =>
  sign(
    account.apiKey,
    { file: { bytes, name }, fields: { ...fields, ...extra } },
    { 'Idempotency-Key': key },
  );

const documentsNamed = async (fileName: string) => {
  const res = await fetch(`${baseUrl}/api/v1/documents?search=${encodeURIComponent(fileName)}`, {
    headers: auth(account.apiKey),
  });
  return ((await res.json()) as { documents: { auditId: string; fileName: string }[] }).documents.filter(
    (d) => d.fileName === fileName,
  );
};

describe('POST /api/v1/sign with an Idempotency-Key', () => {
  it('answers a retry with the same signed document, byte for byte, and signs once', async () => {
    const key = randomUUID();
    const first = await signWithKey(key, pdf, 'retry-once.pdf');
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstPdf = Buffer.from(await first.arrayBuffer());

    const retry = await signWithKey(key, pdf, 'retry-once.pdf');
    expect(retry.status).toBe(200);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    for (const header of [
      'x-audit-id',
      'x-signed-at',
      'x-file-hash',
      'content-disposition',
      'content-type',
    ]) {
      expect(retry.headers.get(header), header).toBe(first.headers.get(header));
    }
    expect(Buffer.from(await retry.arrayBuffer()).equals(firstPdf)).toBe(true);
    expect(await documentsNamed('retry-once.pdf')).toHaveLength(1);
  });

  it('refuses the key for a different request with 409, and signs nothing', async () => {
    const key = randomUUID();
    expect((await signWithKey(key, pdf, 'first-use.pdf')).status).toBe(200);
    const otherFile = await signWithKey(key, await makePdf({ pages: 2 }), 'first-use.pdf');
    expect(otherFile.status).toBe(409);
    expect(await errorOf(otherFile)).toMatch(/^Idempotency-Key was already used for a different request/);
    const otherField = await signWithKey(key, pdf, 'first-use.pdf', { signerName: 'Grace Hopper' });
    expect(otherField.status).toBe(409);
    expect(await documentsNamed('first-use.pdf')).toHaveLength(1);
  });

  it('signs once when the same request arrives several times at once', async () => {
    const key = randomUUID();
    const responses = await Promise.all(
      Array.from({ length: 4 }, () => signWithKey(key, pdf, 'at-once.pdf')),
    );
    expect(responses.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    const auditIds = new Set(responses.map((r) => r.headers.get('x-audit-id')));
    expect(auditIds.size).toBe(1);
    const bodies = await Promise.all(responses.map(async (r) => Buffer.from(await r.arrayBuffer())));
    expect(bodies.every((b) => b.equals(bodies[0] ?? Buffer.alloc(0)))).toBe(true);
    expect(await documentsNamed('at-once.pdf')).toHaveLength(1);
    // The losers' signed PDFs were removed: storage keeps the account's documents and nothing else.
    const [auditId] = [...auditIds];
    const kept = await storage().list(`signed/${account.accountId}/`);
    expect(kept.filter((k) => k.includes(String(auditId)))).toHaveLength(1);
    const recorded = new Set(
      (
        (await (
          await fetch(`${baseUrl}/api/v1/documents?limit=100`, { headers: auth(account.apiKey) })
        ).json()) as { documents: { auditId: string }[] }
      ).documents.map((d) => `signed/${account.accountId}/${d.auditId}.pdf`),
    );
    expect(kept.filter((k) => !recorded.has(k))).toEqual([]);
  });

  it('keeps keys per account, and refuses a malformed key with 400', async () => {
    const key = randomUUID();
    expect((await signWithKey(key, pdf, 'per-account.pdf')).status).toBe(200);
    const other = await createAccount('business');
    const theirs = await sign(
      other.apiKey,
      { file: { bytes: pdf, name: 'per-account.pdf' }, fields },
      { 'Idempotency-Key': key },
    );
    expect(theirs.status).toBe(200);
    expect(theirs.headers.get('idempotent-replayed')).toBeNull();

    for (const bad of ['x'.repeat(256), 'with space']) {
      const res = await signWithKey(bad);
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toMatch(/^Idempotency-Key must be 1-255 visible ASCII characters/);
    }
  });
});

describe('POST /api/v1/webhooks with an Idempotency-Key (kept by the gateway)', () => {
  const createWebhook = (
    key: string,
    url: string,
    headers = auth(account.apiKey),
    path = '/api/v1/webhooks',
  ) =>
    fetch(
      `${baseUrl}${path}`,
      jsonInit('POST', { url, eventTypes: ['document.signed'] }, { ...headers, 'Idempotency-Key': key }),
    );
  const listed = async (url: string, headers = auth(account.apiKey), path = '/api/v1/webhooks') =>
    (
      (await (await fetch(`${baseUrl}${path}`, { headers })).json()) as {
        webhooks: { id: string; url: string }[];
      }
    ).webhooks.filter((w) => w.url === url);

  it('registers one endpoint for two requests with one key: the retry gets the same endpoint and secret', async () => {
    const key = randomUUID();
    const url = `http://127.0.0.3:9/retry/${key}`;

    const first = await createWebhook(key, url);
    const retry = await createWebhook(key, url);

    expect([first.status, retry.status]).toEqual([201, 201]);
    const body = (await first.json()) as { webhook: { id: string }; secret: string };
    expect(await retry.json()).toEqual(body);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('x-webhook-id')).toBe(body.webhook.id);
    expect((await listed(url)).map((w) => w.id)).toEqual([body.webhook.id]);
    // Another request under the key is refused; without a key, a second endpoint is made.
    const other = await createWebhook(key, `${url}/other`);
    expect(other.status).toBe(409);
    expect(await errorOf(other)).toMatch(/Idempotency-Key/);
    expect(await listed(`${url}/other`)).toEqual([]);
  });

  it("keys the dashboard's form by the account too: one endpoint for a double submit", async () => {
    const user = await signUpAndIn();
    const key = randomUUID();
    const url = `http://127.0.0.3:9/dashboard/${key}`;
    const session = dashboardHeaders(user);

    const answers = [
      await createWebhook(key, url, session, '/api/webhooks'),
      await createWebhook(key, url, session, '/api/webhooks'),
    ];

    expect(answers.map((a) => a.status)).toEqual([201, 201]);
    expect(answers[1]?.headers.get('idempotent-replayed')).toBe('true');
    expect(await listed(url, { Cookie: user.cookie }, '/api/webhooks')).toHaveLength(1);
  });
});
