import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_DELAYS_MS, retryDelayMs } from './consume';

describe('retryDelayMs', () => {
  it('grows with the delivery count, repeats the last delay, and jitters by ±20 %', () => {
    const mid = () => 0.5;
    expect([1, 2, 3, 4, 5, 6, 9].map((n) => retryDelayMs(DEFAULT_RETRY_DELAYS_MS, n, mid))).toEqual([
      1000, 5000, 30_000, 120_000, 600_000, 600_000, 600_000,
    ]);
    expect(retryDelayMs([1000], 1, () => 0)).toBe(800);
    expect(retryDelayMs([1000], 1, () => 1)).toBe(1200);
  });
});
