import { describe, expect, it } from 'vitest';
import { retryWhile } from './retry-while';

const transient = (err: unknown) => err instanceof Error && err.message === 'away';

describe('retryWhile', () => {
  it('tells onRetry of each failure it waits out, and stops waiting once stopped', async () => {
    let now = 0;
    let calls = 0;
    let stop = false;
    const told: string[] = [];
    const work = () => {
      calls += 1;
      if (calls === 3) stop = true;
      return Promise.reject(new Error('away'));
    };
    await expect(
      retryWhile(work, transient, {
        withinMs: 60_000,
        stopped: () => stop,
        onRetry: (err) => told.push((err as Error).message),
        now: () => now,
        sleep: (ms) => {
          now += ms;
          return Promise.resolve();
        },
      }),
    ).rejects.toThrow('away');
    expect(calls).toBe(3);
    expect(told).toEqual(['away', 'away']);
  });
});
