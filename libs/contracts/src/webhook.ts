import { z } from 'zod';
import { defineEvent, defineRequest } from './define';
import { ZAuditId, ZFileHash, ZIsoTimestamp } from './common';
import { ZSendId } from './signing';
import { ZEnvelopeId, ZRecipientId, ZRecipientRole } from './envelope';
import { MAX_WEBHOOK_URL_LENGTH, MAX_WEBHOOKS_PER_ACCOUNT, WEBHOOK_EVENT_TYPES } from './constants';

export { MAX_WEBHOOK_URL_LENGTH, MAX_WEBHOOKS_PER_ACCOUNT, WEBHOOK_EVENT_TYPES };

/**
 * Webhooks: the contracts between the gateway (the `/api/v1/webhooks` operations) and the webhook
 * service (endpoints, the event log, deliveries and their attempts; schema `webhook`). The delivery
 * scheme is Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`); see
 * services/webhook/README.md.
 */

export const ZWebhookEventType = z.enum(WEBHOOK_EVENT_TYPES);
export type TWebhookEventType = z.infer<typeof ZWebhookEventType>;

/** `wh_` + 24 base62 characters: the public id of an endpoint. */
export const ZWebhookId = z.string().regex(/^wh_[A-Za-z0-9]{24}$/, 'not a webhook ID');
/** `evt_` + 32 hex digits: the public id of an event, also its `webhook-id` header on every attempt. */
export const ZWebhookEventId = z.string().regex(/^evt_[0-9a-f]{32}$/, 'not an event ID');
/** `whsec_` + base64 of 32 random bytes (the Standard Webhooks secret format). */
export const ZWebhookSecret = z.string().regex(/^whsec_[A-Za-z0-9+/]{43}=$/, 'not a webhook secret');

// ---- the payloads receivers get ------------------------------------------------------------------

const ZDownload = z
  .object({
    url: z.url().meta({ description: 'Presigned GET of the signed PDF; works until expiresAt only' }),
    expiresAt: ZIsoTimestamp,
  })
  .meta({ description: 'A short-lived download link of the signed PDF, made for this attempt' });

const ZRecipient = z.object({ name: z.string(), email: z.string() });

/** `data` of `document.signed`: every signature, from the API or a signing link. */
export const ZDocumentSignedData = z.object({
  auditId: ZAuditId,
  status: z.literal('signed'),
  fileHash: ZFileHash.meta({ description: 'sha256: of exactly the signed bytes' }),
  signedAt: ZIsoTimestamp,
  fileName: z.string().nullable(),
  signer: z.object({ name: z.string(), email: z.string() }).nullable(),
  /** The signing request it completes, when signed through a signing link. */
  sendId: ZSendId.nullable(),
  download: ZDownload.nullable(),
});

const ZSigningDataBase = z.object({
  sendId: ZSendId,
  auditId: ZAuditId,
  fileName: z.string(),
  recipient: ZRecipient,
});

export const ZSigningViewedData = ZSigningDataBase.extend({
  status: z.literal('pending'),
  viewedAt: ZIsoTimestamp,
});
export const ZSigningCompletedData = ZSigningDataBase.extend({
  status: z.literal('signed'),
  signedAt: ZIsoTimestamp,
  fileHash: ZFileHash,
  download: ZDownload.nullable(),
});
export const ZSigningDeclinedData = ZSigningDataBase.extend({
  status: z.literal('declined'),
  declinedAt: ZIsoTimestamp,
  reason: z.string(),
});
export const ZSigningExpiredData = ZSigningDataBase.extend({
  status: z.literal('expired'),
  expiredAt: ZIsoTimestamp,
});
// ---- envelopes (from document-store's `events.envelope.*`) ------------------------------------------

/** A recipient of an envelope as its events show them (never their link, fields or email code). */
const ZWebhookEnvelopeRecipient = z.object({
  recipientId: ZRecipientId,
  name: z.string(),
  email: z.string(),
  role: ZRecipientRole,
  order: z.number().int().meta({ description: 'Their group: groups act in ascending order' }),
});

const ZEnvelopeDataBase = z.object({ envelopeId: ZEnvelopeId, auditId: ZAuditId });

/** `data` of `envelope.sent`: the envelope was created and its first group's turn opened. */
export const ZEnvelopeSentData = ZEnvelopeDataBase.extend({
  fileName: z.string(),
  subject: z.string(),
  recipients: z.array(ZWebhookEnvelopeRecipient),
  expiresAt: ZIsoTimestamp,
});
/** `data` of `recipient.notified`: a signer's or approver's turn came (their email is on its way). */
export const ZRecipientNotifiedData = ZEnvelopeDataBase.extend({ recipient: ZWebhookEnvelopeRecipient });
/** `data` of `recipient.viewed`, `recipient.signed`, `recipient.approved`. */
export const ZRecipientActedData = ZEnvelopeDataBase.extend({
  recipient: ZWebhookEnvelopeRecipient,
  at: ZIsoTimestamp,
  ipAddress: z.string().nullable().meta({ description: 'As the signing page saw it' }),
  userAgent: z.string().nullable(),
});
/** `data` of `recipient.declined`: the recipient who declined, with their reason. */
export const ZRecipientDeclinedData = ZEnvelopeDataBase.extend({
  recipient: ZWebhookEnvelopeRecipient,
  reason: z.string(),
  at: ZIsoTimestamp,
});
/** `data` of `envelope.declined`: the envelope ended because a recipient (`decliner`) declined. */
export const ZEnvelopeDeclinedData = ZEnvelopeDataBase.extend({
  reason: z.string(),
  decliner: ZWebhookEnvelopeRecipient,
  at: ZIsoTimestamp,
});
/** `data` of `envelope.completed`: every signer and approver acted; the sealed document is recorded. */
export const ZEnvelopeCompletedData = ZEnvelopeDataBase.extend({
  fileName: z.string(),
  fileHash: ZFileHash.meta({ description: 'sha256: of exactly the completed (sealed) document' }),
  completedAt: ZIsoTimestamp,
  size: z.number().int().positive().meta({ description: 'Bytes of the completed document' }),
  recipients: z.array(ZWebhookEnvelopeRecipient),
  download: ZDownload.nullable(),
});
/** `data` of `envelope.canceled` and `envelope.expired`. */
export const ZEnvelopeEndedData = ZEnvelopeDataBase.extend({ at: ZIsoTimestamp });

/** `data` of the `webhook.test` event (`POST /api/v1/webhooks/{id}/test`). */
export const ZWebhookTestData = z.object({ message: z.string(), webhookId: ZWebhookId });

const envelope = <T extends string, D extends z.ZodType>(type: T, data: D) =>
  z.object({
    id: ZWebhookEventId.meta({ description: 'Unique per event; equal to the webhook-id header' }),
    type: z.literal(type),
    timestamp: ZIsoTimestamp.meta({ description: 'When the event happened' }),
    data,
  });

/** The body of each kind of delivery, by event type. */
export const WEBHOOK_PAYLOADS = {
  'document.signed': envelope('document.signed', ZDocumentSignedData),
  'signing.viewed': envelope('signing.viewed', ZSigningViewedData),
  'signing.completed': envelope('signing.completed', ZSigningCompletedData),
  'signing.declined': envelope('signing.declined', ZSigningDeclinedData),
  'signing.expired': envelope('signing.expired', ZSigningExpiredData),
  'envelope.sent': envelope('envelope.sent', ZEnvelopeSentData),
  'recipient.notified': envelope('recipient.notified', ZRecipientNotifiedData),
  'recipient.viewed': envelope('recipient.viewed', ZRecipientActedData),
  'recipient.signed': envelope('recipient.signed', ZRecipientActedData),
  'recipient.approved': envelope('recipient.approved', ZRecipientActedData),
  'recipient.declined': envelope('recipient.declined', ZRecipientDeclinedData),
  'envelope.declined': envelope('envelope.declined', ZEnvelopeDeclinedData),
  'envelope.completed': envelope('envelope.completed', ZEnvelopeCompletedData),
  'envelope.canceled': envelope('envelope.canceled', ZEnvelopeEndedData),
  'envelope.expired': envelope('envelope.expired', ZEnvelopeEndedData),
  'webhook.test': envelope('webhook.test', ZWebhookTestData),
} as const;

// ---- endpoints and deliveries as the API shows them -------------------------------------------------

export const ZWebhookEndpoint = z.object({
  id: ZWebhookId,
  url: z.string(),
  description: z.string(),
  eventTypes: z.array(ZWebhookEventType),
  enabled: z.boolean(),
  /** Why it was disabled: `gone` (the receiver answered 410), `failing` (failed for days), `manual`. */
  disabledReason: z.enum(['gone', 'failing', 'manual']).nullable(),
  disabledAt: ZIsoTimestamp.nullable(),
  /** Since when every attempt has failed (null after a success). */
  failingSince: ZIsoTimestamp.nullable(),
  /** While set, deliveries are signed with the previous secret too. */
  previousSecretExpiresAt: ZIsoTimestamp.nullable(),
  createdAt: ZIsoTimestamp,
  updatedAt: ZIsoTimestamp,
});
export type TWebhookEndpoint = z.infer<typeof ZWebhookEndpoint>;

export const ZWebhookAttempt = z.object({
  attemptedAt: ZIsoTimestamp,
  /** The receiver's HTTP status, or null when there was none (refused, timeout, connection error). */
  statusCode: z.number().int().nullable(),
  latencyMs: z.number().int().nonnegative(),
  succeeded: z.boolean(),
  error: z.string().nullable(),
  /** The first bytes of the receiver's answer (at most 1 KiB as text). */
  responseExcerpt: z.string().nullable(),
});

export const ZWebhookDelivery = z.object({
  id: z.uuid(),
  eventId: ZWebhookEventId,
  eventType: z.string(),
  /** `event`: the event itself; `replay`: a manual replay; `test`: a test event. */
  kind: z.enum(['event', 'replay', 'test']),
  /** `pending` (a next attempt is due at nextAttemptAt), `succeeded`, `failed` (retries exhausted or endpoint disabled). */
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int().nonnegative(),
  nextAttemptAt: ZIsoTimestamp.nullable(),
  createdAt: ZIsoTimestamp,
  attemptLog: z.array(ZWebhookAttempt),
});
export type TWebhookDelivery = z.infer<typeof ZWebhookDelivery>;

const ZOwned = z.object({ accountId: z.uuid(), webhookId: z.string().max(100) });

/**
 * Register an endpoint. The URL is checked against server-side request forgery (see the service's
 * README): `invalid_argument` with field `url` when refused. Answers the secret, once.
 */
export const WebhookCreate = defineRequest(
  'webhook.create',
  z.object({
    accountId: z.uuid(),
    url: z.string().max(MAX_WEBHOOK_URL_LENGTH),
    eventTypes: z.array(ZWebhookEventType).min(1),
    description: z.string().max(200).default(''),
  }),
  z.object({ endpoint: ZWebhookEndpoint, secret: ZWebhookSecret }),
);

export const WebhookList = defineRequest(
  'webhook.list',
  z.object({ accountId: z.uuid() }),
  z.object({ endpoints: z.array(ZWebhookEndpoint) }),
);

/** `not_found` for an unknown id or another account's. */
export const WebhookGet = defineRequest('webhook.get', ZOwned, ZWebhookEndpoint);

/** Change the URL (checked again), event types, description, or enable/disable. */
export const WebhookUpdate = defineRequest(
  'webhook.update',
  ZOwned.extend({
    url: z.string().max(MAX_WEBHOOK_URL_LENGTH).optional(),
    eventTypes: z.array(ZWebhookEventType).min(1).optional(),
    description: z.string().max(200).optional(),
    enabled: z.boolean().optional(),
  }),
  ZWebhookEndpoint,
);

/** Remove an endpoint with its delivery log. */
export const WebhookDelete = defineRequest('webhook.delete', ZOwned, z.object({ id: ZWebhookId }));

/**
 * A new secret; the previous one keeps signing (a second signature in `webhook-signature`) until
 * `previousSecretExpiresAt` (default 24 hours).
 */
export const WebhookRotateSecret = defineRequest(
  'webhook.rotate-secret',
  ZOwned.extend({ overlapHours: z.number().int().min(0).max(168).default(24) }),
  z.object({ secret: ZWebhookSecret, previousSecretExpiresAt: ZIsoTimestamp.nullable() }),
);

/** The endpoint's deliveries, newest first, with their attempts. */
export const WebhookDeliveries = defineRequest(
  'webhook.deliveries',
  ZOwned.extend({
    limit: z.number().int().min(1).max(100).default(20),
    /** Deliveries created before this one (the `nextCursor` of the previous page). */
    before: z.uuid().optional(),
  }),
  z.object({ deliveries: z.array(ZWebhookDelivery), nextCursor: z.uuid().nullable() }),
);

/**
 * Deliver an earlier event of the account to this endpoint again (a new delivery with the same event
 * id, so `webhook-id` is the event's). `not_found` for an unknown event.
 */
export const WebhookReplay = defineRequest(
  'webhook.replay',
  ZOwned.extend({ eventId: z.string().max(100) }),
  ZWebhookDelivery,
);

/** Send a `webhook.test` event to the endpoint. */
export const WebhookSendTest = defineRequest('webhook.send-test', ZOwned, ZWebhookDelivery);

/**
 * An endpoint was disabled by the service (410, or failing for days). Durable (JetStream, stream
 * `EVENTS`): the mailer consumes it and emails the account's owner, once per `eventId` (also the
 * message id, so a republish within the dedupe window is dropped); the reason stays on the endpoint too.
 */
export const WebhookEndpointDisabled = defineEvent(
  'events.webhook.endpoint-disabled',
  z.object({
    eventId: z.uuid(),
    accountId: z.uuid(),
    webhookId: ZWebhookId,
    url: z.string(),
    reason: z.enum(['gone', 'failing']),
    failingSince: ZIsoTimestamp.nullable(),
    disabledAt: ZIsoTimestamp,
  }),
  { durable: true },
);
export type TWebhookEndpointDisabledEvent = z.infer<(typeof WebhookEndpointDisabled)['payload']>;
