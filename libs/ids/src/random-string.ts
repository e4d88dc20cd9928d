import { randomBytes } from 'node:crypto';

/**
 * `length` characters drawn from `alphabet` by the system's CSPRNG, each equally likely: a random byte
 * at or above the largest multiple of the alphabet's size below 256 is dropped rather than folded in
 * with `%`, which would favour the first characters (no modulo bias).
 */
export const randomString = (options: { alphabet: string; length: number }): string => {
  const { alphabet, length } = options;
  if (alphabet.length < 2 || alphabet.length > 256)
    throw new RangeError('an alphabet has 2 to 256 characters');
  const limit = 256 - (256 % alphabet.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= limit) continue;
      out += alphabet.charAt(byte % alphabet.length);
      if (out.length === length) break;
    }
  }
  return out;
};
