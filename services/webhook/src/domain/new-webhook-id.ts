import { randomBytes } from 'node:crypto';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `wh_` + 24 base62 characters (about 143 bits). */
export const newWebhookId = (): string => {
  let id = '';
  // 248 = 4 × 62: no modulo bias.
  while (id.length < 24) for (const b of randomBytes(32)) if (b < 248 && id.length < 24) id += BASE62[b % 62];
  return `wh_${id}`;
};
