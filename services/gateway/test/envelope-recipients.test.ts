import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, endpoint, type Bus } from '@esign/bus';
import {
  EnvelopeReplaceRecipient,
  EnvelopeResendRecipient,
  KeyVerify,
  ServiceError,
  type TEnvelope,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { startTestS3, testNatsUrl, uniqueBusPrefix, type TestS3 } from '@esign/testing';
import type { RunningGateway } from '../src/start';
import { startTestGateway } from './helpers';

/**
 * `POST /api/v1/envelopes/{envelopeId}/recipients/{recipientId}/resend|replace` through the real
 * gateway (real NATS, its key-value bucket for replays, the S3 protocol): what reaches document-store,
 * how its answers and errors come out, and a retry with the same Idempotency-Key done once.
 * document-store is a stand-in that records each request.
 */
const ACCOUNT = randomUUID();
const API_KEY = `svc_live_${'e'.repeat(32)}`;
const ENVELOPE_ID = 'env_4f7Qm2XkT9bLw8RzNc3Ya6Ud';
const RECIPIENT_ID = 'rcp_8sKd2LmQ4xTz7VbN1cRw9YeP';
const ACTED_ID = 'rcp_ActedActedActedActed00';
let s3: TestS3;
let services: Bus;
let gateway: RunningGateway;
const resends: unknown[] = [];
const replaces: { name: string; email: string; recipientId: string; accountId: string }[] = [];

const envelope = (name: string, email: string): TEnvelope => ({
  envelopeId: ENVELOPE_ID,
  auditId: 'AUD-0000-0000-0001',
  status: 'pending',
  subject: 'Please sign: lease.pdf',
  message: null,
  fileName: 'lease.pdf',
  pageCount: 1,
  createdAt: '2026-11-26T10:00:00.000Z',
  expiresAt: '2026-12-26T10:00:00.000Z',
  currentOrder: 1,
  revision: 0,
  recipients: [
    {
      recipientId: RECIPIENT_ID,
      name,
      email,
      role: 'signer',
      order: 1,
      status: 'notified',
      requireEmailCode: false,
      embedded: false,
      fields: [{ type: 'signature', page: 0, x: 10, y: 70, width: 30, height: 10, required: true }],
      notifiedAt: '2026-11-26T10:00:00.000Z',
      viewedAt: null,
      actedAt: null,
      declineReason: null,
      replaces:
        name === 'Ann Lee'
          ? []
          : [{ name: 'Ann Lee', email: 'ann@example.com', replacedAt: '2026-11-26T11:00:00.000Z' }],
    },
  ],
  completedAt: null,
  declinedAt: null,
  declineReason: null,
  canceledAt: null,
  expiredAt: null,
  fileHash: null,
});

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  const prefix = uniqueBusPrefix('gwr');
  s3 = await startTestS3();
  const logger = createLogger({ service: 'gateway-test', level: 'error' });
  services = await connectBus({ url: natsUrl, name: 'document-store', prefix, logger, timeoutMs: 5000 });
  await services.serve([
    endpoint(KeyVerify, () =>
      Promise.resolve({
        accountId: ACCOUNT,
        keyId: randomUUID(),
        email: 'sender@example.com',
        plan: 'business' as const,
        apiAccess: true,
      }),
    ),
    endpoint(EnvelopeResendRecipient, (request) => {
      resends.push(request);
      if (request.recipientId === ACTED_ID) {
        throw new ServiceError('conflict', 'the recipient has already signed', 'status');
      }
      return Promise.resolve(envelope('Ann Lee', 'ann@example.com'));
    }),
    endpoint(EnvelopeReplaceRecipient, (request) => {
      replaces.push(request);
      if (request.email === 'taken@example.com') {
        throw new ServiceError(
          'invalid_argument',
          'email: taken@example.com is already a recipient in group 1',
          'email',
        );
      }
      return Promise.resolve(envelope(request.name, request.email));
    }),
  ]);
  gateway = await startTestGateway({ natsUrl, prefix, s3 }, { KEY_CACHE_TTL_MS: '0' }, logger);
});

afterAll(async () => {
  await gateway?.stop();
  await services?.drain();
  await s3?.stop();
});

const post = (path: string, body?: unknown, key?: string) =>
  fetch(`${gateway.url}/api/v1/envelopes/${path}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${API_KEY}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...(key === undefined ? {} : { 'Idempotency-Key': key }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const errorOf = async (res: Response) => ((await res.json()) as { error: string }).error;

describe('POST …/recipients/{recipientId}/resend', () => {
  it("asks document-store for the account's recipient and answers the envelope", async () => {
    const before = resends.length;
    const res = await post(`${ENVELOPE_ID}/recipients/${RECIPIENT_ID}/resend`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ envelopeId: ENVELOPE_ID, recipients: [{ name: 'Ann Lee' }] });
    expect(resends.slice(before)).toEqual([
      { accountId: ACCOUNT, envelopeId: ENVELOPE_ID, recipientId: RECIPIENT_ID },
    ]);
  });

  it('answers 409 for a recipient who acted and 404 for ids that name nothing, without asking', async () => {
    const acted = await post(`${ENVELOPE_ID}/recipients/${ACTED_ID}/resend`);
    expect(acted.status).toBe(409);
    expect(await errorOf(acted)).toContain('already signed');
    const before = resends.length;
    expect((await post(`${ENVELOPE_ID}/recipients/nobody/resend`)).status).toBe(404);
    expect((await post(`env_x/recipients/${RECIPIENT_ID}/resend`)).status).toBe(404);
    expect(resends.length).toBe(before);
  });

  it('does a retry with the same Idempotency-Key once, replaying the first answer', async () => {
    const key = randomUUID();
    const before = resends.length;
    const first = await post(`${ENVELOPE_ID}/recipients/${RECIPIENT_ID}/resend`, undefined, key);
    const retry = await post(`${ENVELOPE_ID}/recipients/${RECIPIENT_ID}/resend`, undefined, key);
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await retry.json()).toEqual(await first.json());
    expect(resends.length - before).toBe(1);
  });
});

describe('POST …/recipients/{recipientId}/replace', () => {
  it('passes the new person to document-store and answers the envelope showing whom they replace', async () => {
    const res = await post(`${ENVELOPE_ID}/recipients/${RECIPIENT_ID}/replace`, {
      name: '  Grace Hopper ',
      email: 'grace@example.com',
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as TEnvelope;
    expect(body.recipients[0]).toMatchObject({
      name: 'Grace Hopper',
      email: 'grace@example.com',
      replaces: [{ name: 'Ann Lee', email: 'ann@example.com' }],
    });
    expect(replaces.at(-1)).toEqual({
      accountId: ACCOUNT,
      envelopeId: ENVELOPE_ID,
      recipientId: RECIPIENT_ID,
      name: 'Grace Hopper',
      email: 'grace@example.com',
    });
  });

  it.each([
    [{ name: 'Grace' }, 'email'],
    [{ name: 'Grace', email: 'not an address' }, 'email'],
    [{ name: '', email: 'grace@example.com' }, 'name'],
  ])('refuses %j with 400 naming the field, without asking', async (body, field) => {
    const before = replaces.length;
    const res = await post(`${ENVELOPE_ID}/recipients/${RECIPIENT_ID}/replace`, body);
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toContain(field);
    expect(replaces.length).toBe(before);
  });

  it("answers document-store's refusal of an email already in the group with 400", async () => {
    const res = await post(`${ENVELOPE_ID}/recipients/${RECIPIENT_ID}/replace`, {
      name: 'Someone',
      email: 'taken@example.com',
    });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toContain('already a recipient in group 1');
  });

  it('replaces once for two requests with one Idempotency-Key; another body with that key is 409', async () => {
    const key = randomUUID();
    const before = replaces.length;
    const body = { name: 'Alan Turing', email: 'alan@example.com' };
    const first = await post(`${ENVELOPE_ID}/recipients/${RECIPIENT_ID}/replace`, body, key);
    const retry = await post(`${ENVELOPE_ID}/recipients/${RECIPIENT_ID}/replace`, body, key);
    expect([first.status, retry.status]).toEqual([200, 200]);
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    const other = await post(
      `${ENVELOPE_ID}/recipients/${RECIPIENT_ID}/replace`,
      { name: 'Other', email: 'other@example.com' },
      key,
    );
    expect(other.status).toBe(409);
    expect(replaces.length - before).toBe(1);
  });
});
