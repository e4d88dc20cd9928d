import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ServiceError, type TEnvelope, type TEnvelopeRecipient } from '@esign/contracts';
import { createSigningUrl } from './create-signing-url';
import type { EnvelopePorts, TAttachLinkRequest } from './envelope-ports';

const ACCOUNT = '3f1c2b8e-5d6a-4e7f-9a0b-1c2d3e4f5a6b';
const OTHER_ACCOUNT = '9a0b1c2d-3e4f-4a6b-8c7d-5e6f7a8b9c0d';
const ENVELOPE_ID = `env_${'E'.repeat(24)}`;
const EVE = `rcp_${'V'.repeat(24)}`;
const ABE = `rcp_${'B'.repeat(24)}`;

const recipient = (over: Partial<TEnvelopeRecipient>): TEnvelopeRecipient => ({
  recipientId: EVE,
  name: 'Eve',
  email: 'eve@example.com',
  role: 'signer',
  order: 1,
  status: 'notified',
  requireEmailCode: false,
  embedded: true,
  fields: [],
  notifiedAt: '2026-11-26T10:00:00.000Z',
  viewedAt: null,
  actedAt: null,
  declineReason: null,
  ...over,
});

const envelopeWith = (recipients: TEnvelopeRecipient[], over: Partial<TEnvelope> = {}): TEnvelope => ({
  envelopeId: ENVELOPE_ID,
  auditId: 'ESG-AAAA-BBBB-CCCC',
  status: 'pending',
  subject: 'Lease',
  message: null,
  fileName: 'lease.pdf',
  pageCount: 1,
  createdAt: '2026-11-26T10:00:00.000Z',
  expiresAt: '2026-12-26T10:00:00.000Z',
  currentOrder: 1,
  revision: 0,
  recipients,
  completedAt: null,
  declinedAt: null,
  declineReason: null,
  canceledAt: null,
  expiredAt: null,
  fileHash: null,
  ...over,
});

/** document-store and the key service as the operation sees them; what was attached is kept. */
const fakePorts = (envelope: TEnvelope, origins: readonly string[] = ['https://app.example.com']) => {
  const attached: TAttachLinkRequest[] = [];
  const ports: Pick<EnvelopePorts, 'get' | 'attachLink' | 'embedOrigins'> = {
    get: (accountId, envelopeId) =>
      accountId === ACCOUNT && envelopeId === envelope.envelopeId
        ? Promise.resolve(envelope)
        : Promise.reject(new ServiceError('not_found', 'no such envelope')),
    attachLink: (request) => {
      attached.push(request);
      return Promise.resolve({
        envelopeId: envelope.envelopeId,
        recipientId: request.recipientId,
        expiresAt: '2026-11-26T10:05:00.000Z',
      });
    },
    embedOrigins: () => Promise.resolve(origins),
  };
  return { ports, attached };
};

const request = (recipientId = EVE, accountId = ACCOUNT) => ({
  accountId,
  envelopeId: ENVELOPE_ID,
  recipientId,
  publicBaseUrl: 'https://esign.example.com/',
});

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => 'ok',
    (err: unknown) => (err instanceof ServiceError ? `${err.code}: ${err.message}` : String(err)),
  );

describe('a signing URL for an embedded recipient', () => {
  it('makes a fresh 43-character token, attaches only its SHA-256 as an embedded link, and answers the page URL', async () => {
    const { ports, attached } = fakePorts(envelopeWith([recipient({})]));

    const first = await createSigningUrl(ports, request());
    const second = await createSigningUrl(ports, request());

    const token = /^https:\/\/esign\.example\.com\/e\/([A-Za-z0-9_-]{43})$/.exec(first.url)?.[1] ?? '';
    expect(token).not.toBe('');
    expect(first.expiresAt).toBe('2026-11-26T10:05:00.000Z');
    expect(attached[0]).toEqual({
      recipientId: EVE,
      tokenHash: createHash('sha256').update(token).digest('hex'),
      mode: 'embedded',
    });
    expect(JSON.stringify(attached)).not.toContain(token);
    expect(second.url).not.toBe(first.url);
  });

  it('also for a recipient who viewed but has not acted, and for an embedded approver', async () => {
    const { ports } = fakePorts(
      envelopeWith([recipient({ status: 'viewed' }), recipient({ recipientId: ABE, role: 'approver' })]),
    );

    expect(await refusal(createSigningUrl(ports, request()))).toBe('ok');
    expect(await refusal(createSigningUrl(ports, request(ABE)))).toBe('ok');
  });

  it('refuses (conflict) a recipient who is emailed, waits for their turn, or acted, and an ended envelope', async () => {
    const emailed = fakePorts(envelopeWith([recipient({ embedded: false })]));
    const waiting = fakePorts(envelopeWith([recipient({ status: 'waiting', order: 2 })]));
    const signed = fakePorts(envelopeWith([recipient({ status: 'signed' })]));
    const canceled = fakePorts(envelopeWith([recipient({})], { status: 'canceled' }));

    expect(await refusal(createSigningUrl(emailed.ports, request()))).toMatch(/^conflict: .*not an embedded/);
    expect(await refusal(createSigningUrl(waiting.ports, request()))).toMatch(
      /^conflict: .*turn has not come/,
    );
    expect(await refusal(createSigningUrl(signed.ports, request()))).toMatch(/^conflict: .*already signed/);
    expect(await refusal(createSigningUrl(canceled.ports, request()))).toMatch(
      /^conflict: The envelope is canceled/,
    );
    for (const fake of [emailed, waiting, signed, canceled]) expect(fake.attached).toEqual([]);
  });

  it('refuses (conflict) while the account has registered no origin, saying where to register one', async () => {
    const { ports, attached } = fakePorts(envelopeWith([recipient({})]), []);

    expect(await refusal(createSigningUrl(ports, request()))).toMatch(/^conflict: .*embed-origins/);
    expect(attached).toEqual([]);
  });

  it("answers not_found for another account's envelope and an unknown recipient", async () => {
    const { ports, attached } = fakePorts(envelopeWith([recipient({})]));

    expect(await refusal(createSigningUrl(ports, request(EVE, OTHER_ACCOUNT)))).toMatch(/^not_found/);
    expect(await refusal(createSigningUrl(ports, request(ABE)))).toMatch(/^not_found/);
    expect(attached).toEqual([]);
  });
});
