import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '@esign/blob';
import { connectBus, type Bus } from '@esign/bus';
import { KeyCreate, KeyRevoke, RequestsCounted } from '@esign/contracts';
import type { RunningStack } from '@esign/stack';
import { startTestStack, type TestStack } from '../support/test-stack';
import { createLogger } from '@esign/telemetry';
import { makePdf, makePng } from '@esign/testing';

/**
 * A second, deliberately incomplete stack: two gateway replicas and the key service, but no signer
 * and no document store, a long key cache and a tight rate limit.
 */
let test: TestStack;
let stack: RunningStack;
let replica: RunningStack;
let bus: Bus;
let form: () => FormData;

beforeAll(async () => {
  test = await startTestStack({
    label: 'deg',
    services: ['key', 'gateway'],
    env: {
      LOG_LEVEL: process.env.E2E_LOGS ? 'debug' : 'error',
      KEY_CACHE_TTL_MS: '600000',
      RATE_LIMIT_PER_MINUTE: '5',
      RATE_LIMIT_SYNC_MS: '50',
    },
    onLine: (service: string, line: string) => {
      if (process.env.E2E_LOGS) console.log(`${service} | ${line}`);
    },
  });
  stack = test.stack;
  replica = await test.startMore({ services: ['gateway'] });
  bus = await connectBus({
    url: test.natsUrl,
    name: 'e2e',
    prefix: test.busPrefix,
    logger: createLogger({ service: 'e2e', level: 'error' }),
    timeoutMs: 5000,
  });
  const pdf = await makePdf({ pages: 1 });
  const png = await makePng({ width: 90, height: 30 });
  form = () => {
    const f = new FormData();
    f.append('signerName', 'A');
    f.append('signerEmail', 'a@example.com');
    f.append('signatureData', `data:image/png;base64,${png.toString('base64')}`);
    f.append('file', new Blob([new Uint8Array(pdf)]), 'a.pdf');
    return f;
  };
}, 120_000);

afterAll(async () => {
  await bus?.drain();
  await test?.stop();
});

/**
 * Rate-limit windows are whole clock minutes: start a short sequence well inside one (a wait on the
 * wall clock on purpose: the window under test is tied to it).
 */
const awayFromMinuteBoundary = async () => {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await new Promise((r) => setTimeout(r, 60_000 - intoMinute + 500));
};

const newKey = async () =>
  await bus.request(KeyCreate, { email: `deg${Date.now()}${Math.random()}@example.com`, plan: 'business' });

describe('when parts of the system are down or overloaded', () => {
  it('answers 503 with a JSON error when the signer is not running, and removes the upload', async () => {
    const { apiKey } = await newKey();
    const res = await fetch(`${stack.gatewayUrl}/api/v1/sign`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}` },
      body: form(),
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toMatch(/unavailable/);
    const blob = createBlobStore({ ...test.s3, bucket: 'esign' });
    expect(await blob.list('uploads/')).toEqual([]);
  });

  it('answers 503 when the document store is down after signing, and keeps no unrecorded signed PDF', async () => {
    const { apiKey } = await newKey();
    const signers = await test.startMore({ services: ['pdf-signer'] });
    try {
      const res = await fetch(`${stack.gatewayUrl}/api/v1/sign`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${apiKey}` },
        body: form(),
      });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: string }).error).toMatch(/document service is unavailable/);
    } finally {
      await signers.stop();
    }
    const blob = createBlobStore({ ...test.s3, bucket: 'esign' });
    expect(await blob.list('signed/')).toEqual([]);
    expect(await blob.list('uploads/')).toEqual([]);
  });

  it('answers 503 when the key service is down, and recovers when it is back', async () => {
    const { apiKey } = await newKey();
    await stack.stopService('key');
    try {
      const res = await fetch(`${stack.gatewayUrl}/api/v1/documents`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: string }).error).toMatch(/key service is unavailable/);
    } finally {
      await stack.startService('key');
    }
    const res = await fetch(`${stack.gatewayUrl}/api/v1/documents`, {
      headers: { Authorization: `Bearer ${apiKey}` },
    });
    expect(res.status).toBe(503); // the key service answers again; the document store is (still) missing
    expect(((await res.json()) as { error: string }).error).toMatch(/document service is unavailable/);
  });

  it('refuses a revoked key at once on every gateway replica, despite a ten-minute cache', async () => {
    const key = await newKey();
    for (const gw of [stack.gatewayUrl, replica.gatewayUrl]) {
      const res = await fetch(`${gw}/api/v1/documents`, {
        headers: { Authorization: `Bearer ${key.apiKey}` },
      });
      expect(res.status).toBe(503); // authenticated (and now cached); the list itself has no service here
    }
    await bus.request(KeyRevoke, { keyId: key.keyId });
    // Each replica hears the revocation within the few milliseconds a message takes.
    for (const gw of [stack.gatewayUrl, replica.gatewayUrl]) {
      await expect
        .poll(async () => {
          const res = await fetch(`${gw}/api/v1/documents`, {
            headers: { Authorization: `Bearer ${key.apiKey}` },
          });
          await res.arrayBuffer();
          return res.status;
        })
        .toBe(401);
    }
  });

  it('answers 429 with Retry-After past the rate limit, per key', async () => {
    await awayFromMinuteBoundary();
    const a = await newKey();
    const b = await newKey();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await fetch(`${stack.gatewayUrl}/api/v1/documents`, {
        headers: { Authorization: `Bearer ${a.apiKey}` },
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(((await res.json()) as { error: string }).error).toMatch(/Rate limit/);
      } else await res.arrayBuffer();
    }
    expect(statuses.slice(0, 5).every((s) => s !== 429)).toBe(true);
    expect(statuses.slice(5)).toEqual([429, 429]);
    const other = await fetch(`${stack.gatewayUrl}/api/v1/documents`, {
      headers: { Authorization: `Bearer ${b.apiKey}` },
    });
    expect(other.status).not.toBe(429);
  });
  it('holds one rate limit across gateway replicas', async () => {
    await awayFromMinuteBoundary();
    const { apiKey, keyId } = await newKey();
    // Each replica tells the others on the bus what it counted (every 50 ms here): once this test's
    // subscriber has heard a count, the other replica has been sent it too.
    const heardHits: number[] = [];
    bus.subscribe(RequestsCounted, (counted) => {
      heardHits.push(counted.hits[`key:${keyId}`] ?? 0);
    });
    const heard = (hits: number) => expect.poll(() => heardHits.reduce((a, b) => a + b, 0)).toBe(hits);
    const get = (gateway: RunningStack) =>
      fetch(`${gateway.gatewayUrl}/api/v1/documents`, {
        headers: { Authorization: `Bearer ${apiKey}` },
      }).then(async (res) => {
        await res.arrayBuffer();
        return res.status;
      });
    const first = [await get(stack), await get(stack), await get(stack)];
    await heard(3);
    const second = [await get(replica), await get(replica)];
    await heard(5);
    // Five requests in all: the limit. The sixth is refused whichever replica it reaches.
    expect([...first, ...second].filter((s) => s === 429)).toEqual([]);
    expect(await get(stack)).toBe(429);
    expect(await get(replica)).toBe(429);
  });
  it('answers 503 when the database is down, and recovers when it is back', async () => {
    const { apiKey } = await newKey();
    const documents = () =>
      fetch(`${stack.gatewayUrl}/api/v1/documents`, { headers: { Authorization: `Bearer ${apiKey}` } });
    await test.database.setAvailable(false);
    try {
      // The key was never verified, so its check reaches the key service and its database.
      const res = await documents();
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: string }).error).toBe('the database is unavailable');
    } finally {
      await test.database.setAvailable(true);
    }
    const res = await documents();
    // The key is verified now; the document store is not part of this stack.
    expect(((await res.json()) as { error: string }).error).toMatch(/document service is unavailable/);
  });

  // Last: it takes the stack's object storage away for good.
  it('answers 503 with a JSON error when object storage is down, not 500', async () => {
    const { apiKey } = await newKey();
    await test.s3.stop();
    const res = await fetch(`${stack.gatewayUrl}/api/v1/sign`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${apiKey}` },
      body: form(),
    });
    expect(res.status).toBe(503);
    expect(((await res.json()) as { error: string }).error).toMatch(/^object storage is unavailable/);
    const ready = await fetch(`${stack.gatewayUrl}/readyz`);
    expect(ready.status).toBe(503);
  });
});
