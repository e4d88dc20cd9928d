import { describe, expect, it } from 'vitest';
import { cachedReading } from './cached-reading';

describe('cachedReading', () => {
  it('reads once for callers within maxAgeMs and for callers during a read, again after', async () => {
    let clock = 0;
    let reads = 0;
    const sut = cachedReading({ read: () => Promise.resolve(++reads), maxAgeMs: 1000, now: () => clock });
    expect(await Promise.all([sut(), sut()])).toEqual([1, 1]);
    clock = 999;
    expect(await sut()).toBe(1);
    clock = 1000;
    expect(await sut()).toBe(2);
    expect(reads).toBe(2);
  });

  it('keeps no failure: the caller after a failed read reads again', async () => {
    let fail = true;
    const sut = cachedReading({
      read: () => (fail ? Promise.reject(new Error('down')) : Promise.resolve('up')),
      maxAgeMs: 60_000,
    });
    await expect(sut()).rejects.toThrow('down');
    fail = false;
    expect(await sut()).toBe('up');
  });
});
