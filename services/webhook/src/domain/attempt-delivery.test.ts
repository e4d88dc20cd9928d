import { describe, expect, it } from 'vitest';
import type { WebhookStore } from '../db/store';
import { settleWithinLease, type AttemptDeps } from './attempt-delivery';

type Settlement = Parameters<WebhookStore['settle']>[0];

const settlement: Settlement = {
  deliveryId: 'd1',
  attemptedAt: new Date(0),
  statusCode: 204,
  latencyMs: 3,
  succeeded: true,
  error: null,
  responseExcerpt: null,
  retryAt: null,
};

/** A store whose settle fails with `errors` in turn, then succeeds; a clock the waits move on. */
const world = (errors: Error[], leaseMs: number) => {
  let now = 0;
  const waits: number[] = [];
  let calls = 0;
  const store = {
    settle: () => {
      calls += 1;
      const err = errors.shift();
      return err ? Promise.reject(err) : Promise.resolve(true);
    },
  } as unknown as WebhookStore;
  const deps = {
    store,
    leaseMs,
    now: () => new Date(now),
    sleep: (ms: number) => {
      waits.push(ms);
      now += ms;
      return Promise.resolve();
    },
  } as unknown as AttemptDeps;
  return { deps, waits, calls: () => calls };
};

const down = () => new Error('Connection terminated unexpectedly');

describe('settleWithinLease', () => {
  it('records the outcome once the database is back, waiting longer each time', async () => {
    const w = world([down(), down(), down()], 60_000);
    await settleWithinLease(w.deps, settlement, new Date(0));
    expect(w.calls()).toBe(4);
    expect(w.waits).toEqual([100, 200, 400]);
  });

  it('gives up before the lease ends, so that no other claim finds the attempt still running', async () => {
    // Lease 3 s, margin 2 s: tries until 1 s after the claim.
    const w = world(Array.from({ length: 10 }, down), 3_000);
    await expect(settleWithinLease(w.deps, settlement, new Date(0))).rejects.toThrow(/Connection terminated/);
    expect(w.waits).toEqual([100, 200, 400]);
    expect(w.calls()).toBe(4);
  });
});
