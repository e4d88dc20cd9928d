import { describe, expect, it } from 'vitest';
import { createRateCounter } from './rate-counter';

describe('createRateCounter', () => {
  it('counts per key in clock-aligned windows and says how long until the next', () => {
    let now = 125_000;
    const sut = createRateCounter({ windowMs: 60_000, now: () => now });
    expect(sut.hit('a')).toEqual({ count: 1, resetMs: 55_000 });
    expect(sut.hit('a').count).toBe(2);
    expect(sut.hit('b').count).toBe(1);
    now = 180_000;
    expect(sut.hit('a')).toEqual({ count: 1, resetMs: 60_000 });
  });

  it('adds what other replicas counted in the same window, and hands out its own hits once', () => {
    const now = 0;
    const sut = createRateCounter({ windowMs: 60_000, now: () => now });
    const other = createRateCounter({ windowMs: 60_000, now: () => now });
    sut.hit('a');
    sut.hit('a');
    other.hit('a');
    const mine = sut.takeUnsent();
    expect(mine).toEqual({ window: 0, hits: { a: 2 } });
    expect(sut.takeUnsent()).toBeUndefined();
    other.addRemote(mine ?? { window: 0, hits: {} });
    expect(other.hit('a').count).toBe(4);
    sut.addRemote(other.takeUnsent() ?? { window: 0, hits: {} });
    expect(sut.hit('a').count).toBe(5);
  });

  it('drops counts of a window that is over, and follows a replica whose clock is ahead', () => {
    let now = 61_000;
    const sut = createRateCounter({ windowMs: 60_000, now: () => now });
    sut.hit('a');
    sut.addRemote({ window: 0, hits: { a: 50 } });
    expect(sut.hit('a').count).toBe(2);
    sut.addRemote({ window: 2, hits: { a: 7 } });
    now = 120_500;
    expect(sut.hit('a').count).toBe(8);
  });
});
