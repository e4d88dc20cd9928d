import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, type Bus, type KV } from '@esign/bus';
import { ServiceError } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { testNatsUrl, uniqueBusPrefix } from '@esign/testing';
import {
  createIdempotencyStore,
  IDEMPOTENCY_TTL_MS,
  requestFingerprint,
  type IdempotencyStore,
  type IdempotentRequest,
  type StoredAnswer,
} from './idempotency';

/** The operation layer's Idempotency-Keys in a real NATS JetStream key-value bucket. */
let bus: Bus;
let kv: KV;
let sut: IdempotencyStore;

beforeAll(async () => {
  const logger = createLogger({ service: 'gateway-test', level: 'error' });
  bus = await connectBus({
    url: await testNatsUrl(),
    name: 'gateway',
    prefix: uniqueBusPrefix('gwi'),
    logger,
    timeoutMs: 5000,
  });
  kv = await bus.keyValue('idempotency', { ttlMs: IDEMPOTENCY_TTL_MS });
  sut = createIdempotencyStore({ kv, logger });
});

afterAll(async () => {
  await kv?.destroy();
  await bus?.drain();
});

type Answer = { status: number; json: unknown; headers?: Record<string, string> };

const jsonAnswers = (answer: Answer): StoredAnswer | undefined =>
  answer.status >= 200 && answer.status < 300
    ? { status: answer.status, json: answer.json, headers: answer.headers ?? {} }
    : undefined;

const request = (fingerprint = 'f'.repeat(64)): IdempotentRequest => ({
  accountId: randomUUID(),
  operationId: 'createWebhook',
  key: randomUUID(),
  fingerprint,
});

/** A handler that counts its runs and answers a new webhook each time. */
const handler = () => {
  let runs = 0;
  return {
    runs: () => runs,
    run: (): Promise<Answer> => {
      runs += 1;
      const id = `wh_${randomUUID()}`;
      return Promise.resolve({ status: 201, json: { webhook: { id } }, headers: { 'X-Webhook-Id': id } });
    },
  };
};

describe('IdempotencyStore.once', () => {
  it('answers a retry with the first answer (status, JSON, headers) without running the handler again', async () => {
    const req = request();
    const h = handler();

    const first = await sut.once(req, h.run, jsonAnswers);
    const retry = await sut.once(req, h.run, jsonAnswers);

    expect(first.replayed).toBe(false);
    if (first.replayed) return;
    expect(retry).toEqual({
      replayed: true,
      answer: { status: 201, json: first.result.json, headers: first.result.headers },
    });
    expect(h.runs()).toBe(1);
  });

  it('keeps keys apart by account and by operation', async () => {
    const req = request();
    const h = handler();

    await sut.once(req, h.run, jsonAnswers);
    const otherAccount = await sut.once({ ...req, accountId: randomUUID() }, h.run, jsonAnswers);
    const otherOperation = await sut.once({ ...req, operationId: 'rotateWebhookSecret' }, h.run, jsonAnswers);

    expect([otherAccount.replayed, otherOperation.replayed]).toEqual([false, false]);
    expect(h.runs()).toBe(3);
  });

  it('refuses the same key with another request: 409 on Idempotency-Key, and the handler does not run', async () => {
    const req = request('a'.repeat(64));
    const h = handler();
    await sut.once(req, h.run, jsonAnswers);

    const other = sut.once({ ...req, fingerprint: 'b'.repeat(64) }, h.run, jsonAnswers);

    await expect(other).rejects.toBeInstanceOf(ServiceError);
    await expect(other).rejects.toMatchObject({ code: 'conflict', field: 'Idempotency-Key' });
    expect(h.runs()).toBe(1);
  });

  it('runs concurrent first requests once: the other is told the first is in progress', async () => {
    const req = request();
    let runs = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const slow = async (): Promise<Answer> => {
      runs += 1;
      await gate;
      return { status: 201, json: { webhook: { id: 'wh_1' } } };
    };

    const attempts = Promise.allSettled([
      sut.once(req, slow, jsonAnswers),
      sut.once(req, slow, jsonAnswers),
      sut.once(req, slow, jsonAnswers),
    ]);
    // Let every attempt reach the bucket before the first one answers.
    await new Promise((resolve) => setTimeout(resolve, 300));
    release();
    const outcomes = await attempts;

    expect(runs).toBe(1);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason as ServiceError);
    expect(refused).toHaveLength(2);
    for (const err of refused) {
      expect(err).toMatchObject({ code: 'conflict', field: 'Idempotency-Key' });
      expect(err.message).toMatch(/in progress/);
    }
    // Once it has answered, a retry gets its answer.
    await expect(sut.once(req, slow, jsonAnswers)).resolves.toMatchObject({ replayed: true });
    expect(runs).toBe(1);
  });

  it('lets the retry of a failed first attempt run: thrown, or answered other than 2xx', async () => {
    const req = request();
    const h = handler();

    const thrown = sut.once(req, () => Promise.reject(new ServiceError('unavailable', 'down')), jsonAnswers);
    await expect(thrown).rejects.toMatchObject({ code: 'unavailable' });
    const refused = await sut.once(
      req,
      () => Promise.resolve({ status: 409, json: { error: 'disabled' } }),
      jsonAnswers,
    );
    expect(refused).toEqual({ replayed: false, result: { status: 409, json: { error: 'disabled' } } });
    const retried = await sut.once(req, h.run, jsonAnswers);
    const again = await sut.once(req, h.run, jsonAnswers);

    expect(retried.replayed).toBe(false);
    expect(again.replayed).toBe(true);
    expect(h.runs()).toBe(1);
  });

  it('takes over a claim left by a gateway that stopped mid-request, once it is old enough', async () => {
    const req = request();
    const h = handler();
    const patient = createIdempotencyStore({
      kv,
      logger: createLogger({ service: 'gateway-test', level: 'error' }),
      abandonedAfterMs: 200,
    });
    let release!: () => void;
    const never = new Promise<Answer>((resolve) => {
      release = () => resolve({ status: 500, json: {} });
    });
    // A first request that never answers (its gateway is gone).
    const stuck = patient.once(req, () => never, jsonAnswers);
    await new Promise((resolve) => setTimeout(resolve, 50));
    await expect(patient.once(req, h.run, jsonAnswers)).rejects.toThrow(/in progress/);

    await new Promise((resolve) => setTimeout(resolve, 250));
    const retried = await patient.once(req, h.run, jsonAnswers);

    expect(retried.replayed).toBe(false);
    expect(h.runs()).toBe(1);
    release();
    await stuck;
    // The stale claim's late failure does not remove the answer the retry stored.
    await expect(patient.once(req, h.run, jsonAnswers)).resolves.toMatchObject({ replayed: true });
    expect(h.runs()).toBe(1);
  });
});

describe('what the bucket holds', () => {
  it('keeps the answer sealed with the Idempotency-Key: a secret in it is not readable from the bucket', async () => {
    const req = request();
    const secret = `whsec_${randomUUID()}`;
    await sut.once(req, () => Promise.resolve({ status: 201, json: { secret } }), jsonAnswers);

    const keys: string[] = [];
    for await (const key of await kv.keys()) keys.push(key);
    const values = await Promise.all(keys.map(async (key) => (await kv.get(key))?.string() ?? ''));

    expect(keys.every((key) => /^[0-9a-f]{64}$/.test(key))).toBe(true);
    expect(values.some((value) => value.includes('"done"'))).toBe(true);
    expect(values.filter((value) => value.includes(secret))).toEqual([]);
    // With the key, the retry reads it.
    await expect(sut.once(req, handler().run, jsonAnswers)).resolves.toMatchObject({
      replayed: true,
      answer: { json: { secret } },
    });
  });

  it('answers 503 (unavailable) when the bucket does not answer, and does not run the handler', async () => {
    const down = createIdempotencyStore({
      kv: { create: () => Promise.reject(new Error('TIMEOUT')) } as unknown as KV,
      logger: createLogger({ service: 'gateway-test', level: 'error' }),
    });
    const counted = handler();

    await expect(down.once(request(), counted.run, jsonAnswers)).rejects.toMatchObject({
      code: 'unavailable',
    });
    expect(counted.runs()).toBe(0);
  });
});

describe('requestFingerprint', () => {
  const base = {
    method: 'post',
    path: '/api/v1/webhooks/{webhookId}/rotate-secret',
    params: { webhookId: 'wh_1' },
    query: {},
    body: { overlapHours: 24, note: { a: 1, b: 2 } },
  };

  it('is the same for the same request, whatever the order of its fields', () => {
    expect(requestFingerprint(base)).toBe(
      requestFingerprint({ ...base, method: 'POST', body: { note: { b: 2, a: 1 }, overlapHours: 24 } }),
    );
  });

  it('differs by path parameter, body and path', () => {
    const fingerprints = new Set([
      requestFingerprint(base),
      requestFingerprint({ ...base, params: { webhookId: 'wh_2' } }),
      requestFingerprint({ ...base, body: { overlapHours: 48, note: { a: 1, b: 2 } } }),
      requestFingerprint({ ...base, path: '/api/webhooks/{webhookId}/rotate-secret' }),
    ]);
    expect(fingerprints.size).toBe(4);
  });
});
