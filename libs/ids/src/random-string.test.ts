import { describe, expect, it } from 'vitest';
import { BASE62, randomBase62 } from './base62';
import { randomString } from './random-string';

describe('randomString', () => {
  it('makes strings of the asked length from the alphabet only', () => {
    for (const length of [0, 1, 4, 24, 32, 200]) {
      const sut = randomString({ alphabet: 'xyz', length });
      expect(sut).toHaveLength(length);
      expect(sut).toMatch(/^[xyz]*$/);
    }
  });

  it('refuses an alphabet that one byte cannot draw from', () => {
    expect(() => randomString({ alphabet: 'a', length: 4 })).toThrow(RangeError);
    expect(() => randomString({ alphabet: 'a'.repeat(257), length: 4 })).toThrow(RangeError);
  });

  it('draws every character about equally often (no modulo bias towards the first ones)', () => {
    // 62 does not divide 256: folding bytes with % would make '0'..'7' 5/4 as likely as the rest.
    const draws = 62 * 2000;
    const counts = new Map<string, number>();
    for (const c of randomBase62(draws)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = draws / 62;
    // Chi-square with 61 degrees of freedom: above 110 happens by chance about once in 10,000 runs;
    // with a %-fold bias the statistic is in the hundreds.
    let chiSquare = 0;
    for (const count of counts.values()) chiSquare += (count - expected) ** 2 / expected;
    expect(chiSquare).toBeLessThan(110);
    const firstEight = [...BASE62.slice(0, 8)].reduce((sum, c) => sum + (counts.get(c) ?? 0), 0) / 8;
    expect(firstEight / expected).toBeLessThan(1.1);
  });
});

describe('randomBase62', () => {
  it('uses digits and both cases of letters, and does not repeat', () => {
    const ids = Array.from({ length: 2000 }, () => randomBase62(24));
    for (const id of ids) expect(id).toMatch(/^[0-9A-Za-z]{24}$/);
    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(ids.join('')).size).toBe(62);
  });
});
