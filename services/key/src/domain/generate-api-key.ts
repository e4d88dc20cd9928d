import { LIVE_KEY_PREFIX } from '@esign/contracts';
import { randomBase62 } from '@esign/ids';
import { hashApiKey } from './hash-api-key';

/** Random characters after `svc_live_`: 32 base62 characters, about 190 bits. */
export const API_KEY_RANDOM_LENGTH = 32;
/** Characters of the key kept for display (`svc_live_` and 3 random characters): too few to matter. */
export const API_KEY_DISPLAY_LENGTH = 12;

/** A new API key with its hash and display prefix. Only `keyHash` and `prefix` may be stored. */
export interface GeneratedApiKey {
  readonly apiKey: string;
  readonly keyHash: string;
  readonly prefix: string;
}

/** Generate `svc_live_` + 32 random base62 characters from the system's CSPRNG. */
export const generateApiKey = (): GeneratedApiKey => {
  const apiKey = `${LIVE_KEY_PREFIX}${randomBase62(API_KEY_RANDOM_LENGTH)}`;
  return { apiKey, keyHash: hashApiKey(apiKey), prefix: apiKey.slice(0, API_KEY_DISPLAY_LENGTH) };
};
