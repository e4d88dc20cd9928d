import { createHash } from 'node:crypto';

/** SHA-256 of a plain API key, lowercase hex: the only form in which a key is stored or sent. */
export const hashApiKey = (apiKey: string): string =>
  createHash('sha256').update(apiKey, 'utf8').digest('hex');
