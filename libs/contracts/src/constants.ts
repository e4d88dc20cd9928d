/**
 * The contracts' plain values, with no import at all: the browser pages take them from
 * `@esign/contracts/constants` instead of copying them, without bundling zod. The modules that
 * build schemas on them re-export them, so `@esign/contracts` still offers every one.
 */

/** Prefix of production API keys. */
export const LIVE_KEY_PREFIX = 'svc_live_';
/** Prefix of the public sandbox token. */
export const SANDBOX_TOKEN_PREFIX = 'svc_sandbox_';

/** Longest `subject` a sender may give (one line; CR/LF are refused at the edge and stripped by the mailer). */
export const MAX_SIGNING_SUBJECT_LENGTH = 200;
/** Longest personal `message` a sender may add to the request email. */
export const MAX_SIGNING_MESSAGE_LENGTH = 2000;
/** Longest decline reason (required, 1-1,000 characters). */
export const MAX_DECLINE_REASON_LENGTH = 1000;

/** The event types a webhook endpoint can subscribe to. */
export const WEBHOOK_EVENT_TYPES = [
  'document.signed',
  'signing.viewed',
  'signing.completed',
  'signing.declined',
  'signing.expired',
  'envelope.sent',
  'recipient.notified',
  'recipient.viewed',
  'recipient.signed',
  'recipient.approved',
  'recipient.declined',
  'envelope.declined',
  'envelope.completed',
  'envelope.canceled',
  'envelope.expired',
] as const;
/** Longest webhook endpoint URL accepted. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;
/** Webhook endpoints per account. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;
