import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, endpoint, type Bus } from '@esign/bus';
import { KeyVerify, WebhookCreate, WebhookList, type TWebhookEndpoint } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { startTestS3, testNatsUrl, uniqueBusPrefix, type TestS3 } from '@esign/testing';
import type { RunningGateway } from '../src/start';
import { startTestGateway } from './helpers';

/**
 * `idempotency: 'replay'` through the real gateway (real NATS, its JetStream key-value bucket, and the
 * S3 protocol): POST /api/v1/webhooks twice with one Idempotency-Key makes one endpoint, whichever
 * replica the retry reaches. The webhook service is a stand-in that keeps its endpoints in a list.
 */
const ACCOUNT = randomUUID();
const API_KEY = `svc_live_${'k'.repeat(32)}`;
let s3: TestS3;
let services: Bus;
let replicaA: RunningGateway;
let replicaB: RunningGateway;
const endpoints: TWebhookEndpoint[] = [];
let creates = 0;

const base62Id = () =>
  Array.from(
    randomBytes(24),
    (b) => 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'[b % 62],
  ).join('');

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  const prefix = uniqueBusPrefix('gwk');
  s3 = await startTestS3();
  const logger = createLogger({ service: 'gateway-test', level: 'error' });
  services = await connectBus({ url: natsUrl, name: 'webhook', prefix, logger, timeoutMs: 5000 });
  await services.serve([
    endpoint(KeyVerify, () =>
      Promise.resolve({
        accountId: ACCOUNT,
        keyId: randomUUID(),
        email: 'a@example.com',
        plan: 'business' as const,
        apiAccess: true,
      }),
    ),
    endpoint(WebhookCreate, async (req) => {
      creates += 1;
      // Slow enough for a concurrent retry to meet the first request still running.
      await new Promise((resolve) => setTimeout(resolve, 100));
      const now = new Date().toISOString();
      const created: TWebhookEndpoint = {
        id: `wh_${base62Id()}`,
        url: req.url,
        description: req.description,
        eventTypes: req.eventTypes,
        enabled: true,
        disabledReason: null,
        disabledAt: null,
        failingSince: null,
        previousSecretExpiresAt: null,
        createdAt: now,
        updatedAt: now,
      };
      endpoints.unshift(created);
      return { endpoint: created, secret: `whsec_${randomBytes(32).toString('base64')}` };
    }),
    endpoint(WebhookList, () => Promise.resolve({ endpoints })),
  ]);
  const infra = { natsUrl, prefix, s3 };
  // Two replicas of one deployment: they share the key-value bucket.
  replicaA = await startTestGateway(infra, { KEY_CACHE_TTL_MS: '0' }, logger);
  replicaB = await startTestGateway(infra, { KEY_CACHE_TTL_MS: '0' }, logger);
});

afterAll(async () => {
  await replicaA?.stop();
  await replicaB?.stop();
  await services?.drain();
  await s3?.stop();
});

const createWebhook = (gateway: RunningGateway, key: string | undefined, url = 'https://example.com/hook') =>
  fetch(`${gateway.url}/api/v1/webhooks`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${API_KEY}`,
      'Content-Type': 'application/json',
      ...(key === undefined ? {} : { 'Idempotency-Key': key }),
    },
    body: JSON.stringify({ url, eventTypes: ['document.signed'] }),
  });

const listed = async (gateway: RunningGateway) => {
  const res = await fetch(`${gateway.url}/api/v1/webhooks`, {
    headers: { Authorization: `Bearer ${API_KEY}` },
  });
  return ((await res.json()) as { webhooks: { id: string; url: string }[] }).webhooks;
};

describe('POST /api/v1/webhooks with an Idempotency-Key', () => {
  it('creates one endpoint for two requests with one key: the retry gets the first answer, marked replayed', async () => {
    const key = randomUUID();
    const url = `https://example.com/hook/${key}`;
    const createsBefore = creates;

    const first = await createWebhook(replicaA, key, url);
    const retry = await createWebhook(replicaB, key, url);

    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    const firstBody = (await first.json()) as { webhook: { id: string }; secret: string };
    expect(await retry.json()).toEqual(firstBody);
    expect(retry.headers.get('X-Webhook-Id')).toBe(firstBody.webhook.id);
    expect(retry.headers.get('Cache-Control')).toBe('no-store');
    expect(first.headers.get('Idempotent-Replayed')).toBeNull();
    expect(retry.headers.get('Idempotent-Replayed')).toBe('true');
    expect(creates - createsBefore).toBe(1);
    expect((await listed(replicaA)).filter((w) => w.url === url)).toHaveLength(1);
  });

  it('refuses the same key for another URL with 409 and creates nothing', async () => {
    const key = randomUUID();
    await createWebhook(replicaA, key, `https://example.com/first/${key}`);
    const createsBefore = creates;

    const other = await createWebhook(replicaA, key, `https://example.com/second/${key}`);

    expect(other.status).toBe(409);
    expect(((await other.json()) as { error: string }).error).toMatch(/Idempotency-Key/);
    expect(creates).toBe(createsBefore);
  });

  it('answers a retry that arrives while the first is running with 409, and runs the first once', async () => {
    const key = randomUUID();
    const url = `https://example.com/concurrent/${key}`;
    const createsBefore = creates;

    const answers = await Promise.all([createWebhook(replicaA, key, url), createWebhook(replicaB, key, url)]);

    expect(answers.map((a) => a.status).sort()).toEqual([201, 409]);
    const refused = answers.find((a) => a.status === 409);
    expect(((await refused?.json()) as { error: string }).error).toMatch(/in progress/);
    expect(creates - createsBefore).toBe(1);
  });

  it('creates again without a key, and refuses a malformed key with 400 naming it', async () => {
    const url = `https://example.com/keyless/${randomUUID()}`;

    await createWebhook(replicaA, undefined, url);
    await createWebhook(replicaA, undefined, url);
    const malformed = await createWebhook(replicaA, 'has spaces', url);

    expect((await listed(replicaA)).filter((w) => w.url === url)).toHaveLength(2);
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: string }).error).toMatch(/Idempotency-Key/);
  });
});
