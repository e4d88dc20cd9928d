import { createHmac, randomBytes } from 'node:crypto';

/** A new endpoint secret in the Standard Webhooks format: `whsec_` + base64 of 32 random bytes. */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The Standard Webhooks signature of one attempt: `v1,` + base64 HMAC-SHA256, keyed with the secret's
 * bytes, over `<webhook-id>.<webhook-timestamp>.<body>`. With several secrets (a rotation's overlap)
 * the signatures are space-separated; a receiver accepts the message when any of them verifies.
 */
export const signWebhook = (
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string =>
  secrets
    .map((secret) => {
      const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
      const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
      return `v1,${mac}`;
    })
    .join(' ');
