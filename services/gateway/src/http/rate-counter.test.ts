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
    expect(mine).toEqual([{ window: 0, hits: { a: 2 } }]);
    expect(sut.takeUnsent()).toEqual([]);
    for (const m of mine) other.addRemote(m);
    expect(other.hit('a').count).toBe(4);
    for (const m of other.takeUnsent()) sut.addRemote(m);
    expect(sut.hit('a').count).toBe(5);
  });

  it('splits what it hands out into messages of a bounded number of keys', () => {
    const sut = createRateCounter({ windowMs: 60_000, now: () => 0 });
    for (let i = 0; i < 5; i++) sut.hit(`ip:10.0.0.${i}`);
    const messages = sut.takeUnsent(2);
    expect(messages.map((m) => Object.keys(m.hits).length)).toEqual([2, 2, 1]);
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
