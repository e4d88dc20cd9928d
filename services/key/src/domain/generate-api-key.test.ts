import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateApiKey } from './generate-api-key';

describe('generateApiKey', () => {
  it('makes svc_live_ keys of 32 base62 characters with their SHA-256 and a 12-character prefix', () => {
    const sut = generateApiKey();
    expect(sut.apiKey).toMatch(/^svc_live_[0-9A-Za-z]{32}$/);
    expect(sut.keyHash).toBe(createHash('sha256').update(sut.apiKey).digest('hex'));
    expect(sut.prefix).toBe(sut.apiKey.slice(0, 12));
  });

  it('never repeats a key and uses the whole alphabet', () => {
    const keys = Array.from({ length: 2000 }, () => generateApiKey().apiKey);
    expect(new Set(keys).size).toBe(keys.length);
    const seen = new Set(keys.flatMap((k) => [...k.slice('svc_live_'.length)]));
    expect(seen.size).toBe(62);
  });
});
