import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { makePdf, pdfSig } from '@esign/testing';
import { auth, baseUrl, createAccount, errorOf, type TestAccount } from './harness';
import {
  linkIn,
  newRecipient,
  pageCall,
  send,
  statusOf,
  waitForMail,
  waitForStatus,
  type SendResult,
} from './send-harness';

/**
 * `POST /api/v1/send` makes a one-signer envelope: the send keeps its own link, page, emails and
 * status, and its envelope answers on the envelope API with the same story, through the whole stack.
 */

interface Envelope {
  envelopeId: string;
  sendId?: string;
  auditId: string;
  status: string;
  fileHash: string | null;
  revision: number;
  recipients: { recipientId: string; email: string; role: string; order: number; status: string }[];
}

let business: TestAccount;
let pdf: Buffer;
const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

beforeAll(async () => {
  business = await createAccount('business');
  pdf = await makePdf({ pages: 2, text: 'Send as an envelope' });
});

const api = (path: string, init: RequestInit = {}, apiKey = business.apiKey) =>
  fetch(`${baseUrl}/api/v1${path}`, { ...init, headers: { ...auth(apiKey), ...init.headers } });

/** Sends `pdf`, reads the email's link, and finds the send's envelope in the account's list. */
const sendOne = async () => {
  const recipient = newRecipient();
  const res = await send(business.apiKey, {
    pdf,
    recipientEmail: recipient,
    fields: { positions: [{ x: 10, y: 70, page: 1, width: 30 }] },
  });
  expect(res.status).toBe(201);
  const sent = (await res.json()) as SendResult;
  const link = linkIn((await waitForMail(recipient, /^Please sign/))[0]);
  const list = (await (await api('/envelopes?limit=100')).json()) as { envelopes: Envelope[] };
  const envelope = list.envelopes.find((e) => e.sendId === sent.sendId);
  if (!envelope) throw new Error('the send has no envelope in the list');
  const get = async () => (await (await api(`/envelopes/${envelope.envelopeId}`)).json()) as Envelope;
  return { recipient, sent, link, envelope, get };
};

describe('a send is a one-signer envelope', () => {
  it('listed and read through the envelope API, it follows the send to completion and serves the signed PDF', async () => {
    const { recipient, sent, link, envelope, get } = await sendOne();
    expect(envelope).toMatchObject({ auditId: sent.auditId, status: 'pending', revision: 0 });
    expect(envelope.recipients).toEqual([
      expect.objectContaining({ email: recipient, role: 'signer', order: 1, status: 'notified' }),
    ]);

    expect((await pageCall('/signing/api/view', link.token, {})).status).toBe(200);
    await expect.poll(async () => (await get()).recipients[0]?.status).toBe('viewed');

    const signed = await pageCall('/signing/api/sign', link.token, {
      signerName: 'Grace Hopper',
      signature: { mode: 'type', typedName: 'Grace Hopper', color: '#111827' },
    });
    expect(signed.status).toBe(200);
    const status = await waitForStatus(business.apiKey, sent.sendId, (s) => s.status === 'signed');
    const done = await get();
    expect(done).toMatchObject({ status: 'completed', fileHash: status.fileHash, revision: 1 });
    expect(done.recipients[0]?.status).toBe('signed');

    // The envelope's document is the signed PDF the documents API serves, byte for byte.
    const document = await api(`/envelopes/${envelope.envelopeId}/document`);
    expect(document.status).toBe(200);
    const bytes = new Uint8Array(await document.arrayBuffer());
    expect(sha256(bytes)).toBe(status.fileHash);
    expect((await pdfSig(bytes)).stdout).toContain('Signature is Valid.');
    // The status endpoint still answers by send ID and audit ID alike.
    expect((await statusOf(business.apiKey, sent.auditId)).status).toBe('signed');
  });

  it('cancel and resend on the envelope act on the send; replace and signing-url are 409; another account gets 404', async () => {
    const { recipient, sent, link, envelope } = await sendOne();
    const recipientPath = `/envelopes/${envelope.envelopeId}/recipients/${envelope.recipients[0]?.recipientId}`;

    const resent = await api(`${recipientPath}/resend`, { method: 'POST' });
    expect(resent.status).toBe(200);
    const fresh = linkIn((await waitForMail(recipient, /^Please sign/, 2))[1]);
    expect(fresh.token).not.toBe(link.token);
    expect((await fetch(link.url)).status).toBe(404);

    const replace = await api(`${recipientPath}/replace`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Sam Other', email: 'sam@example.com' }),
    });
    expect(replace.status).toBe(409);
    expect(await errorOf(replace)).toContain('cannot be replaced');
    const url = await api(`${recipientPath}/signing-url`, { method: 'POST' });
    expect(url.status).toBe(409);

    const stranger = await createAccount('business');
    const foreign = await api(
      `/envelopes/${envelope.envelopeId}/cancel`,
      { method: 'POST' },
      stranger.apiKey,
    );
    expect(foreign.status).toBe(404);

    const canceled = await api(`/envelopes/${envelope.envelopeId}/cancel`, { method: 'POST' });
    expect(canceled.status).toBe(200);
    expect(await canceled.json()).toMatchObject({ status: 'canceled', sendId: sent.sendId });
    expect((await statusOf(business.apiKey, sent.sendId)).status).toBe('canceled');
    await waitForMail(recipient, /^Canceled:/);
    expect((await fetch(fresh.url)).status).toBe(410);
  });
});
