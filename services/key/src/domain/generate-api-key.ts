import { randomBytes } from 'node:crypto';
import { LIVE_KEY_PREFIX } from '@esign/contracts';
import { hashApiKey } from './hash-api-key';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** Random characters after `svc_live_`: 32 base62 characters, about 190 bits. */
export const API_KEY_RANDOM_LENGTH = 32;
/** Characters of the key kept for display (`svc_live_` and 3 random characters): too few to matter. */
export const API_KEY_DISPLAY_LENGTH = 12;
// The largest multiple of 62 below 256: bytes at or above it are dropped, so every character is equally likely.
const UNBIASED_LIMIT = 248;

/** A new API key with its hash and display prefix. Only `keyHash` and `prefix` may be stored. */
export interface GeneratedApiKey {
  readonly apiKey: string;
  readonly keyHash: string;
  readonly prefix: string;
}

const randomBase62 = (length: number): string => {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= UNBIASED_LIMIT) continue;
      out += BASE62.charAt(byte % 62);
      if (out.length === length) break;
    }
  }
  return out;
};

/** Generate `svc_live_` + 32 random base62 characters from the system's CSPRNG. */
export const generateApiKey = (): GeneratedApiKey => {
  const apiKey = `${LIVE_KEY_PREFIX}${randomBase62(API_KEY_RANDOM_LENGTH)}`;
  return { apiKey, keyHash: hashApiKey(apiKey), prefix: apiKey.slice(0, API_KEY_DISPLAY_LENGTH) };
};
