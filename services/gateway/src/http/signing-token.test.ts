import { describe, expect, it } from 'vitest';
import { isSigningToken, redactSigningPath, signingTokenHash } from './signing-token';

describe('signing link tokens', () => {
  const token = 'a'.repeat(21) + '-_' + 'Z9'.repeat(10);

  it('accepts 43 base64url characters only', () => {
    expect(isSigningToken(token)).toBe(true);
    expect(isSigningToken(token.slice(1))).toBe(false);
    expect(isSigningToken(`${token}x`)).toBe(false);
    expect(isSigningToken(token.replace('a', '+'))).toBe(false);
  });

  it('hashes the text as the mailer does (SHA-256 hex)', () => {
    expect(signingTokenHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('redacts the token of a signing page path, and nothing else', () => {
    expect(redactSigningPath(`/s/${token}`)).toBe('/s/:token');
    expect(redactSigningPath(`/s/${token}/more`)).toBe('/s/:token/more');
    expect(redactSigningPath('/s/')).toBe('/s/:token');
    expect(redactSigningPath('/signing/api/sign')).toBe('/signing/api/sign');
    expect(redactSigningPath('/api/v1/s/x')).toBe('/api/v1/s/x');
  });
});
