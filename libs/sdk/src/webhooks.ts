import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { WebhookEvent } from './types.js';

export { WebhookVerificationError };

/** Request headers as Node's http module, fetch's `Headers` or a plain object give them. */
export type WebhookHeaders =
  { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

const header = (headers: WebhookHeaders, name: string): string => {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? '';
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const value: string | readonly string[] | undefined =
    record[name] ?? record[Object.keys(record).find((k) => k.toLowerCase() === name) ?? ''];
  if (value === undefined) return '';
  return typeof value === 'string' ? value : (value[0] ?? '');
};

/**
 * Verifies a webhook we sent and answers its event, typed by `type`; throws WebhookVerificationError
 * when the signature does not match the body (with any of its signatures: two during a secret's
 * rotation overlap) or the timestamp is more than 5 minutes off. Built on the `standardwebhooks`
 * package. Pass the body exactly as received (the raw bytes or text, not re-serialised JSON), the
 * request's headers, and the endpoint's `whsec_…` secret. De-duplicate on `event.id` (the
 * `webhook-id` header): a retry or a replay carries the same one.
 *
 * ```ts
 * app.post('/esign/webhooks', express.raw({ type: 'application/json' }), (req, res) => {
 *   const event = verifyWebhook(req.body, req.headers, process.env.ESIGN_WEBHOOK_SECRET!);
 *   if (event.type === 'document.signed') console.log(event.data.auditId);
 *   res.sendStatus(204);
 * });
 * ```
 */
export const verifyWebhook = (
  body: string | Uint8Array,
  headers: WebhookHeaders,
  secret: string,
): WebhookEvent => {
  const payload =
    typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return new Webhook(secret).verify(payload, {
    'webhook-id': header(headers, 'webhook-id'),
    'webhook-timestamp': header(headers, 'webhook-timestamp'),
    'webhook-signature': header(headers, 'webhook-signature'),
  }) as WebhookEvent;
};
