import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookEvent } from './types.js';

/**
 * A webhook failed verification: a header is missing, the timestamp is not a number or is more than
 * 5 minutes off, or no `v1` signature matches the body. Answer such a request with a 4xx.
 */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Request headers as Node's http module, fetch's `Headers` or a plain object give them. */
export type WebhookHeaders =
  { get(name: string): string | null } | Readonly<Record<string, string | readonly string[] | undefined>>;

/** How far a webhook's timestamp may be from our clock, either way (the standard's 5 minutes). */
const TOLERANCE_SECONDS = 5 * 60;
const SECRET_PREFIX = 'whsec_';
/**
 * Standard base64 with its padding, at least one quantum. Node's decoder skips what it cannot read,
 * so a mistyped secret is refused here rather than turned into a different key.
 */
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

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
 * The HMAC key of a `whsec_…` secret (the prefix is optional). A secret that is no key at all is a
 * mistake in the receiver's configuration, not a bad request, so it throws a plain `Error`.
 */
const keyOf = (secret: string): Buffer => {
  if (typeof secret !== 'string') throw new Error('Expected secret to be of type string');
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded !== '' && (encoded.length < 4 || !BASE64.test(encoded))) {
    throw new Error('Secret is not base64 (the part after whsec_)');
  }
  const key = Buffer.from(encoded, 'base64');
  if (key.length === 0) throw new Error("Secret can't be empty.");
  return key;
};

/** Whole seconds of a `webhook-timestamp`, checked against our clock. */
const checkTimestamp = (value: string): number => {
  const timestamp = Number.parseInt(value, 10);
  if (Number.isNaN(timestamp)) throw new WebhookVerificationError('Invalid Signature Headers');
  const now = Math.floor(Date.now() / 1000);
  if (now - timestamp > TOLERANCE_SECONDS) throw new WebhookVerificationError('Message timestamp too old');
  if (timestamp > now + TOLERANCE_SECONDS) throw new WebhookVerificationError('Message timestamp too new');
  return timestamp;
};

/**
 * Verifies a webhook we sent and answers its event, typed by `type`; throws WebhookVerificationError
 * when the signature does not match the body (with any of its signatures: two during a secret's
 * rotation overlap) or the timestamp is more than 5 minutes off. Implements the Standard Webhooks
 * scheme on `node:crypto`: HMAC-SHA256 over `<webhook-id>.<webhook-timestamp>.<body>`, keyed with the
 * base64 after `whsec_`, compared in constant time. Pass the body exactly as received (the raw bytes
 * or text, not re-serialised JSON), the request's headers, and the endpoint's `whsec_…` secret.
 * De-duplicate on `event.id` (the `webhook-id` header): a retry or a replay carries the same one.
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
  const key = keyOf(secret);
  const id = header(headers, 'webhook-id');
  const timestampHeader = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestampHeader || !signatures) throw new WebhookVerificationError('Missing required headers');
  const timestamp = checkTimestamp(timestampHeader);
  // Bytes are read as UTF-8 text and signed as such, as the reference libraries do, so a body
  // verifies the same whether it is passed as bytes or as the string they decode to.
  const text =
    typeof body === 'string'
      ? body
      : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  const expected = Buffer.from(
    createHmac('sha256', key).update(`${id}.${timestamp}.${text}`, 'utf8').digest('base64'),
  );
  for (const versioned of signatures.split(' ')) {
    const [version, signature = ''] = versioned.split(',');
    if (version !== 'v1') continue;
    const given = Buffer.from(signature);
    if (given.length === expected.length && timingSafeEqual(given, expected)) {
      // An empty body carries no event; JSON.parse would throw on it.
      return (text === '' ? undefined : JSON.parse(text)) as WebhookEvent;
    }
  }
  throw new WebhookVerificationError('No matching signature found');
};
