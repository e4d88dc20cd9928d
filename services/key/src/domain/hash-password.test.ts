import { describe, expect, it } from 'vitest';
import { hashPassword, needsRehash, verifyPassword } from './hash-password';

// The cheapest cost the service accepts keeps these tests quick; the format is the same at any cost.
const params = { logN: 14, r: 8, p: 1 };

describe('hashPassword', () => {
  it('stores the parameters, a 16-byte salt and a 32-byte hash, salted differently each time', async () => {
    const sut = await hashPassword('correct horse battery staple', params);
    expect(sut).toMatch(/^\$scrypt\$ln=14,r=8,p=1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(await hashPassword('correct horse battery staple', params)).not.toBe(sut);
    expect(sut).not.toContain('correct horse');
  });

  it('verifies the right password only, and the same password typed composed or decomposed', async () => {
    const sut = await hashPassword('Cr\u00e8me br\u00fbl\u00e9e', params);
    expect(await verifyPassword('Cr\u00e8me br\u00fbl\u00e9e', sut)).toBe(true);
    expect(await verifyPassword('Cre\u0300me bru\u0302le\u0301e', sut)).toBe(true);
    expect(await verifyPassword('Creme brulee', sut)).toBe(false);
    expect(await verifyPassword('anything', 'not a hash')).toBe(false);
  });

  it('asks for a rehash when the stored cost is below the current one', async () => {
    const sut = await hashPassword('pw-pw-pw-pw', params);
    expect(needsRehash(sut, params)).toBe(false);
    expect(needsRehash(sut, { ...params, logN: 15 })).toBe(true);
    expect(needsRehash('garbage', params)).toBe(true);
  });
});
