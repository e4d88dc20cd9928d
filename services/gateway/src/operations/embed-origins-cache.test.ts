import { describe, expect, it } from 'vitest';
import { createEmbedOriginsCache } from './embed-origins-cache';

const ACCOUNT = '6f1c2b8e-3d4a-4c5b-9e6f-7a8b9c0d1e2f';

/** A key service stand-in: answers the current list and counts the questions. */
const keyService = (origins: readonly string[]) => {
  const state = { origins, asked: 0 };
  return {
    state,
    load: () => {
      state.asked += 1;
      return Promise.resolve(state.origins);
    },
  };
};

describe('the embed origins cache', () => {
  it('asks the key service once within its time to live, then again', async () => {
    let now = 1000;
    const sut = createEmbedOriginsCache({ ttlMs: 30_000, now: () => now });
    const key = keyService(['https://app.example.com']);

    expect(await sut.get(ACCOUNT, key.load)).toEqual(['https://app.example.com']);
    now = 30_999;
    key.state.origins = ['https://other.example.com'];
    expect(await sut.get(ACCOUNT, key.load)).toEqual(['https://app.example.com']);
    expect(key.state.asked).toBe(1);
    now = 31_000;
    expect(await sut.get(ACCOUNT, key.load)).toEqual(['https://other.example.com']);
    expect(key.state.asked).toBe(2);
  });

  it('answers a change made through this gateway at once, even over a read that was under way', async () => {
    const sut = createEmbedOriginsCache({ ttlMs: 30_000 });
    let answer: (origins: readonly string[]) => void = () => undefined;
    const slowRead = sut.get(
      ACCOUNT,
      () =>
        new Promise<readonly string[]>((resolve) => {
          answer = resolve;
        }),
    );

    sut.put(ACCOUNT, ['https://new.example.com']);
    answer(['https://old.example.com']);

    expect(await slowRead).toEqual(['https://old.example.com']);
    const key = keyService(['https://unasked.example.com']);
    expect(await sut.get(ACCOUNT, key.load)).toEqual(['https://new.example.com']);
    expect(key.state.asked).toBe(0);
  });

  it('keeps at most maxEntries accounts, dropping the oldest, and caches nothing with a zero time to live', async () => {
    const sut = createEmbedOriginsCache({ ttlMs: 30_000, maxEntries: 2 });
    for (const account of ['a', 'b', 'c']) await sut.get(account, keyService([]).load);
    const key = keyService(['https://a.example.com']);
    expect(sut.size).toBe(2);
    expect(await sut.get('a', key.load)).toEqual(['https://a.example.com']);
    expect(key.state.asked).toBe(1);

    const off = createEmbedOriginsCache({ ttlMs: 0 });
    const counted = keyService([]);
    await off.get(ACCOUNT, counted.load);
    await off.get(ACCOUNT, counted.load);
    off.put(ACCOUNT, ['https://app.example.com']);
    expect([counted.state.asked, off.size]).toEqual([2, 0]);
  });
});
