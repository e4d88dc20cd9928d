import { randomBase62 } from '@esign/ids';

/** `wh_` + 24 base62 characters (about 143 bits). */
export const newWebhookId = (): string => `wh_${randomBase62(24)}`;
