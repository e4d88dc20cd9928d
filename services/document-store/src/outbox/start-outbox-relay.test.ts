import { createLogger } from '@esign/telemetry';
import { describe, expect, it } from 'vitest';
import type { OutboxRepository, TOutboxPass } from './outbox-repository';
import { startOutboxRelay } from './start-outbox-relay';

const quiet = createLogger({ service: 'test', level: 'error', write: () => undefined });

describe('startOutboxRelay', () => {
  it('passes over the outbox at start, on notify and again while batches come back full', async () => {
    const passes: number[] = [];
    let pending = 5;
    const outbox: OutboxRepository = {
      publishPending({ limit }): Promise<TOutboxPass> {
        const claimed = Math.min(limit, pending);
        pending -= claimed;
        passes.push(claimed);
        return Promise.resolve({ claimed, published: claimed });
      },
    };
    const sut = startOutboxRelay({
      outbox,
      subjects: ['events.x'],
      publish: () => Promise.resolve(true),
      logger: quiet,
      pollMs: 60_000,
      batchSize: 2,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(passes).toEqual([2, 2, 1]);
    pending = 1;
    sut.notify();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(passes).toEqual([2, 2, 1, 1]);
    await sut.stop();
    sut.notify();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(passes).toHaveLength(4);
  });

  it('keeps polling after a failed pass', async () => {
    let calls = 0;
    const outbox: OutboxRepository = {
      publishPending() {
        calls += 1;
        return calls === 1
          ? Promise.reject(new Error('db down'))
          : Promise.resolve({ claimed: 0, published: 0 });
      },
    };
    const sut = startOutboxRelay({
      outbox,
      subjects: ['events.x'],
      publish: () => Promise.resolve(true),
      logger: quiet,
      pollMs: 10,
      batchSize: 10,
    });
    await new Promise((resolve) => setTimeout(resolve, 60));
    await sut.stop();
    expect(calls).toBeGreaterThan(2);
  });
});
