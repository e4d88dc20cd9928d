import { createLogger } from '@esign/telemetry';
import { ErrorCode, NatsError } from 'nats';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { OutboxRepository, TOutboxPass } from './outbox-repository';
import { startOutboxRelay } from './start-outbox-relay';

const quiet = createLogger({ service: 'test', level: 'error', write: () => undefined });

// The relay's timers run on vitest's clock: each step moves it exactly as far as the step needs.
beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

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
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toEqual([2, 2, 1]);
    pending = 1;
    sut.notify();
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toEqual([2, 2, 1, 1]);
    await sut.stop();
    sut.notify();
    // Stopped: the notify schedules nothing, and no poll is left either.
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(120_000);
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
    await vi.advanceTimersByTimeAsync(60);
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
    await vi.advanceTimersByTimeAsync(0);
    expect(passes).toBe(1); // the one at start

    for (let i = 0; i < 200; i += 1) sut.notify();
    await vi.advanceTimersByTimeAsync(29);
    expect(passes).toBe(1); // still gathering
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toBe(2);

    holding = true;
    sut.notify();
    await vi.advanceTimersByTimeAsync(30);
    expect(passes).toBe(3); // under way, held
    holding = false;
    for (let i = 0; i < 50; i += 1) sut.notify();
    release();
    await vi.advanceTimersByTimeAsync(29);
    expect(passes).toBe(3); // the follow-up gathers like any notify
    await vi.advanceTimersByTimeAsync(1);
    expect(passes).toBe(4); // one follow-up for everything notified during the pass
    await vi.advanceTimersByTimeAsync(1000);
    expect(passes).toBe(4);
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
    await vi.advanceTimersByTimeAsync(0);
    sut.notify();
    await sut.stop();
    expect(passes).toBe(2);
  });

  /** Twenty passes fail with `failure`, then publishing works: the relay's log lines. */
  const outageLines = async (failure: NatsError) => {
    const lines: { level: string; msg: string; dependency?: string }[] = [];
    const logger = createLogger({
      service: 'test',
      write: (line) => lines.push(JSON.parse(line) as { level: string; msg: string }),
    });
    let passes = 0;
    const outbox: OutboxRepository = {
      publishPending(): Promise<TOutboxPass> {
        passes += 1;
        return Promise.resolve(
          passes <= 20 ? { claimed: 1, published: 0, failure } : { claimed: 1, published: 1 },
        );
      },
    };
    const sut = startOutboxRelay({
      outbox,
      subjects: ['events.x'],
      publish: () => Promise.resolve({ published: [] }),
      logger,
      pollMs: 10,
      batchSize: 10,
    });
    // 20 failing passes, then the outage settles (1 s up) before its end is written.
    await vi.advanceTimersByTimeAsync(1300);
    await sut.stop();
    expect(passes).toBeGreaterThan(21);
    return lines.map((l) => [l.level, l.msg, l.dependency]);
  };

  it('writes one line when NATS goes away and one when publishing works again, not an error per pass', async () => {
    // A publish buffered through the disconnect that times out.
    expect(await outageLines(new NatsError('TIMEOUT', ErrorCode.Timeout))).toEqual([
      ['warn', 'dependency unavailable', 'message bus (outbox relay)'],
      ['info', 'dependency available again', 'message bus (outbox relay)'],
    ]);
  });

  it('writes one line while the stream elects a leader (no stream answers: 503), not an error', async () => {
    expect(await outageLines(new NatsError('503', ErrorCode.NoResponders))).toEqual([
      ['warn', 'dependency unavailable', 'JetStream stream (outbox relay)'],
      ['info', 'dependency available again', 'JetStream stream (outbox relay)'],
    ]);
  });
});
