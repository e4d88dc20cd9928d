import { z } from 'zod';
import {
  MAX_WEBHOOK_URL_LENGTH,
  WEBHOOK_PAYLOADS,
  ZWebhookAttempt,
  ZWebhookDelivery,
  ZWebhookEndpoint,
  ZWebhookEventType,
  ZWebhookSecret,
} from '@esign/contracts';
import { named } from '../api/named';

// The public bodies of `/api/v1/webhooks` and of the webhooks we send (the OpenAPI 3.1 `webhooks`
// section). The shapes are the contracts' (libs/contracts/src/webhook.ts), which the webhook service
// builds its payloads against; each is copied here (`extend({})`) and named, so that it is a public
// schema of its own.

const ZUrl = z
  .string()
  .min(1, 'url is required')
  .max(MAX_WEBHOOK_URL_LENGTH, `url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`)
  .meta({
    description:
      'http(s) URL of your receiver; must resolve to public addresses only (no private, loopback or link-local), no credentials',
    example: 'https://example.com/esign/webhooks',
  });
const ZEventTypes = z
  .array(ZWebhookEventType, {
    error: `eventTypes: each must be one of ${ZWebhookEventType.options.join(', ')}`,
  })
  .min(1, 'eventTypes must name at least one event type')
  .meta({ description: 'The events this endpoint receives', example: ['document.signed'] });
const ZDescription = z.string().max(200, 'description must be at most 200 characters');

export const ZCreateWebhookRequest = named(
  'CreateWebhookRequest',
  'Where to send which events.',
  z.object({ url: ZUrl, eventTypes: ZEventTypes, description: ZDescription.optional() }),
);

export const ZUpdateWebhookRequest = named(
  'UpdateWebhookRequest',
  'What to change; the fields left out stay as they are. `enabled: true` re-enables a disabled endpoint (its pending deliveries resume).',
  z
    .object({
      url: ZUrl.optional(),
      eventTypes: ZEventTypes.optional(),
      description: ZDescription.optional(),
      enabled: z.boolean().optional(),
    })
    .refine((v) => Object.values(v).some((x) => x !== undefined), 'give at least one field to change'),
);

export const ZRotateWebhookSecretRequest = named(
  'RotateWebhookSecretRequest',
  'How long the previous secret keeps signing alongside the new one.',
  z.object({
    overlapHours: z
      .number({ error: 'overlapHours must be an integer from 0 to 168' })
      .int('overlapHours must be an integer from 0 to 168')
      .min(0, 'overlapHours must be an integer from 0 to 168')
      .max(168, 'overlapHours must be an integer from 0 to 168')
      .optional()
      .meta({ description: 'Default 24; 0 ends the old secret at once', example: 24 }),
  }),
);

export const ZPublicWebhook = named(
  'Webhook',
  'An endpoint that receives events. Its secret is shown only when created or rotated.',
  ZWebhookEndpoint.extend({}),
);

export const ZNewWebhook = named(
  'NewWebhook',
  'A new endpoint and its signing secret, shown this once.',
  z.object({
    webhook: ZPublicWebhook,
    secret: ZWebhookSecret.meta({
      description: 'whsec_…: verify our signatures with it (standardwebhooks, or the SDK’s verifyWebhook)',
    }),
  }),
);

export const ZWebhookList = named(
  'WebhookList',
  "The account's endpoints.",
  z.object({ webhooks: z.array(ZPublicWebhook) }),
);

export const ZRotatedWebhookSecret = named(
  'RotatedWebhookSecret',
  'The new secret (shown once) and until when the previous one still signs.',
  z.object({ secret: ZWebhookSecret, previousSecretExpiresAt: z.iso.datetime({ offset: true }).nullable() }),
);

export const ZPublicWebhookAttempt = named(
  'WebhookAttempt',
  'One attempt to deliver.',
  ZWebhookAttempt.extend({}),
);

export const ZPublicWebhookDelivery = named(
  'WebhookDelivery',
  'One event to one endpoint, with every attempt.',
  ZWebhookDelivery.extend({ attemptLog: z.array(ZPublicWebhookAttempt) }),
);

export const ZWebhookDeliveryList = named(
  'WebhookDeliveryList',
  "An endpoint's deliveries, newest first.",
  z.object({
    deliveries: z.array(ZPublicWebhookDelivery),
    nextCursor: z
      .uuid()
      .nullable()
      .meta({ description: 'Pass as `before` for the next page; null on the last' }),
  }),
);

/** The events we send, for the OpenAPI `webhooks` section: name, summary, body schema. */
export const WEBHOOK_EVENTS = [
  {
    type: 'document.signed',
    summary: 'A document was signed (through the API, the dashboard or a signing link)',
    schema: named(
      'DocumentSignedWebhook',
      'document.signed: the audit ID, file hash, signer and times, and a download link of the signed PDF valid for an hour (made for each attempt).',
      WEBHOOK_PAYLOADS['document.signed'].extend({}),
    ),
  },
  {
    type: 'signing.viewed',
    summary: 'The recipient of a signing request opened the document',
    schema: named('SigningViewedWebhook', 'signing.viewed', WEBHOOK_PAYLOADS['signing.viewed'].extend({})),
  },
  {
    type: 'signing.completed',
    summary: 'The recipient signed a signing request',
    schema: named(
      'SigningCompletedWebhook',
      'signing.completed, with a download link of the signed PDF valid for an hour.',
      WEBHOOK_PAYLOADS['signing.completed'].extend({}),
    ),
  },
  {
    type: 'signing.declined',
    summary: 'The recipient declined a signing request, with a reason',
    schema: named(
      'SigningDeclinedWebhook',
      'signing.declined',
      WEBHOOK_PAYLOADS['signing.declined'].extend({}),
    ),
  },
  {
    type: 'signing.expired',
    summary: 'A signing request expired unsigned',
    schema: named('SigningExpiredWebhook', 'signing.expired', WEBHOOK_PAYLOADS['signing.expired'].extend({})),
  },
  {
    type: 'envelope.sent',
    summary: 'An envelope was sent: its first group of recipients is being notified',
    schema: named(
      'EnvelopeSentWebhook',
      'envelope.sent: the envelope, its file, subject, every recipient (role and group) and its expiry.',
      WEBHOOK_PAYLOADS['envelope.sent'].extend({}),
    ),
  },
  {
    type: 'recipient.notified',
    summary: "A signer's or approver's turn came in an envelope (their email is on its way)",
    schema: named(
      'RecipientNotifiedWebhook',
      'recipient.notified: sent for a turn only, not for a resend or a reminder.',
      WEBHOOK_PAYLOADS['recipient.notified'].extend({}),
    ),
  },
  {
    type: 'recipient.viewed',
    summary: 'A recipient of an envelope was shown the document (first view)',
    schema: named(
      'RecipientViewedWebhook',
      'recipient.viewed, with the IP address and user agent the signing page saw.',
      WEBHOOK_PAYLOADS['recipient.viewed'].extend({}),
    ),
  },
  {
    type: 'recipient.signed',
    summary: 'A signer of an envelope signed',
    schema: named(
      'RecipientSignedWebhook',
      'recipient.signed, with the IP address and user agent the signing page saw.',
      WEBHOOK_PAYLOADS['recipient.signed'].extend({}),
    ),
  },
  {
    type: 'recipient.approved',
    summary: 'An approver of an envelope approved',
    schema: named(
      'RecipientApprovedWebhook',
      'recipient.approved, with the IP address and user agent the signing page saw.',
      WEBHOOK_PAYLOADS['recipient.approved'].extend({}),
    ),
  },
  {
    type: 'recipient.declined',
    summary:
      'A signer or approver of an envelope declined, with a reason (the envelope.declined event follows)',
    schema: named(
      'RecipientDeclinedWebhook',
      'recipient.declined: the recipient who declined and their reason.',
      WEBHOOK_PAYLOADS['recipient.declined'].extend({}),
    ),
  },
  {
    type: 'envelope.declined',
    summary: 'An envelope ended because a recipient declined',
    schema: named(
      'EnvelopeDeclinedWebhook',
      'envelope.declined: the reason and the recipient who declined.',
      WEBHOOK_PAYLOADS['envelope.declined'].extend({}),
    ),
  },
  {
    type: 'envelope.completed',
    summary: 'Every signer and approver of an envelope acted: the sealed document is recorded',
    schema: named(
      'EnvelopeCompletedWebhook',
      'envelope.completed: the file hash and size, every recipient, and a download link of the completed PDF valid for an hour (made for each attempt).',
      WEBHOOK_PAYLOADS['envelope.completed'].extend({}),
    ),
  },
  {
    type: 'envelope.canceled',
    summary: 'The sender canceled an envelope',
    schema: named(
      'EnvelopeCanceledWebhook',
      'envelope.canceled',
      WEBHOOK_PAYLOADS['envelope.canceled'].extend({}),
    ),
  },
  {
    type: 'envelope.expired',
    summary: 'An envelope expired before every signer and approver acted',
    schema: named(
      'EnvelopeExpiredWebhook',
      'envelope.expired',
      WEBHOOK_PAYLOADS['envelope.expired'].extend({}),
    ),
  },
  {
    type: 'webhook.test',
    summary: 'A test event (POST /api/v1/webhooks/{webhookId}/test)',
    schema: named('WebhookTestWebhook', 'webhook.test', WEBHOOK_PAYLOADS['webhook.test'].extend({})),
  },
] as const;
