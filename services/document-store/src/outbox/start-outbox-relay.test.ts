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
      publish: () => Promise.resolve({ published: [] }),
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
      publish: () => Promise.resolve({ published: [] }),
      logger: quiet,
      pollMs: 10,
      batchSize: 10,
    });
    await new Promise((resolve) => setTimeout(resolve, 60));
    await sut.stop();
    expect(calls).toBeGreaterThan(2);
  });

  it('coalesces a burst of notifies, and those during a pass, into one pass each', async () => {
    let passes = 0;
    let release: () => void = () => undefined;
    let holding = false;
    const outbox: OutboxRepository = {
      async publishPending(): Promise<TOutboxPass> {
        passes += 1;
        if (holding) await new Promise<void>((resolve) => (release = resolve));
        return { claimed: 1, published: 1 };
      },
    };
    const sut = startOutboxRelay({
      outbox,
      subjects: ['events.x'],
      publish: () => Promise.resolve({ published: [] }),
      logger: quiet,
      pollMs: 60_000,
      batchSize: 100,
      coalesceMs: 30,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(passes).toBe(1); // the one at start

    for (let i = 0; i < 200; i += 1) sut.notify();
    await new Promise((resolve) => setTimeout(resolve, 15));
    expect(passes).toBe(1); // still gathering
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(passes).toBe(2);

    holding = true;
    sut.notify();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(passes).toBe(3); // under way, held
    holding = false;
    for (let i = 0; i < 50; i += 1) sut.notify();
    release();
    await new Promise((resolve) => setTimeout(resolve, 80));
    expect(passes).toBe(4); // one follow-up for everything notified during the pass
    await sut.stop();
  });

  it('runs the pass a notify is waiting for when stopped', async () => {
    let passes = 0;
    const outbox: OutboxRepository = {
      publishPending(): Promise<TOutboxPass> {
        passes += 1;
        return Promise.resolve({ claimed: 0, published: 0 });
      },
    };
    const sut = startOutboxRelay({
      outbox,
      subjects: ['events.x'],
      publish: () => Promise.resolve({ published: [] }),
      logger: quiet,
      pollMs: 60_000,
      batchSize: 100,
      coalesceMs: 10_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    sut.notify();
    await sut.stop();
    expect(passes).toBe(2);
  });
});
