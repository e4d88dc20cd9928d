import { describe, expect, it } from 'vitest';
import type { TPrincipal } from '@esign/contracts';
import { createKeyCache } from './key-cache';

const principal: TPrincipal = {
  accountId: '6f1c2b8e-3d4a-4c5b-9e6f-7a8b9c0d1e2f',
  keyId: '1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d',
  email: 'a@example.com',
  plan: 'business',
  apiAccess: true,
};

describe('key cache', () => {
  it('returns a cached principal until its time to live runs out', () => {
    let now = 1000;
    const sut = createKeyCache({ ttlMs: 500, now: () => now });
    sut.set('h', principal);
    expect(sut.get('h')).toEqual(principal);
    now = 1499;
    expect(sut.get('h')).toEqual(principal);
    now = 1500;
    expect(sut.get('h')).toBeUndefined();
  });

  it('forgets a key at once when it is evicted', () => {
    const sut = createKeyCache({ ttlMs: 60_000 });
    sut.set('h', principal);
    sut.evict('h');
    expect(sut.get('h')).toBeUndefined();
  });

  it('drops the oldest entry when full, and caches nothing with a zero time to live', () => {
    const sut = createKeyCache({ ttlMs: 60_000, maxEntries: 2 });
    sut.set('a', principal);
    sut.set('b', principal);
    sut.set('c', principal);
    expect([sut.get('a'), sut.size]).toEqual([undefined, 2]);
    const off = createKeyCache({ ttlMs: 0 });
    off.set('a', principal);
    expect(off.get('a')).toBeUndefined();
  });
});
