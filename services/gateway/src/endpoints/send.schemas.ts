import {
  DEFAULT_SIGNING_EXPIRY_DAYS,
  MAX_SIGNING_EXPIRY_DAYS,
  MAX_SIGNING_MESSAGE_LENGTH,
  MAX_SIGNING_SUBJECT_LENGTH,
  MIN_SIGNING_EXPIRY_DAYS,
  ZAuditId,
  ZFileHash,
  ZIsoTimestamp,
  ZSendId,
} from '@esign/contracts';
import { z } from 'zod';
import { named } from '../api/named';
import { hasVisibleText, positionsJson } from './sign-fields';

/** The public schemas of send for signing (POST /api/v1/send, its status, cancel and resend). */

export const ZSendFields = z.object({
  recipientEmail: z
    .email({ error: 'recipientEmail must be an email address' })
    .max(254, 'recipientEmail must be at most 254 characters')
    .meta({ description: 'Who is asked to sign: the signing link is emailed there' }),
  recipientName: z
    .string({ error: 'recipientName is required' })
    .trim()
    .min(1, 'recipientName is required')
    .max(200, 'recipientName must be at most 200 characters')
    .refine(hasVisibleText, 'recipientName is required (it has no visible characters)')
    .meta({ description: "The recipient's full name (the signing page asks them to confirm it)" }),
  subject: z
    .string()
    .trim()
    .min(1, 'subject must not be empty')
    .max(MAX_SIGNING_SUBJECT_LENGTH, `subject must be at most ${MAX_SIGNING_SUBJECT_LENGTH} characters`)
    .regex(/^[^\r\n]*$/, 'subject must be one line')
    .optional()
    .meta({ description: 'Subject of the email; default "Please sign: <file name>"' }),
  message: z
    .string()
    .max(MAX_SIGNING_MESSAGE_LENGTH, `message must be at most ${MAX_SIGNING_MESSAGE_LENGTH} characters`)
    .optional()
    .meta({
      description:
        'A personal message shown in the email and above the document on the signing page (plain text, never HTML)',
    }),
  positions: positionsJson.optional().meta({
    description:
      'JSON array of {x, y, page, width} as on POST /api/v1/sign: where the signature goes, checked against the document\'s pages at once. Default [{"x":50,"y":85,"page":0,"width":25}]',
  }),
  expiresInDays: z
    .preprocess(
      (v) => (typeof v === 'string' ? Number(v.trim()) : v),
      z
        .number({
          error: `expiresInDays must be an integer from ${MIN_SIGNING_EXPIRY_DAYS} to ${MAX_SIGNING_EXPIRY_DAYS}`,
        })
        .int(`expiresInDays must be an integer from ${MIN_SIGNING_EXPIRY_DAYS} to ${MAX_SIGNING_EXPIRY_DAYS}`)
        .min(
          MIN_SIGNING_EXPIRY_DAYS,
          `expiresInDays must be an integer from ${MIN_SIGNING_EXPIRY_DAYS} to ${MAX_SIGNING_EXPIRY_DAYS}`,
        )
        .max(
          MAX_SIGNING_EXPIRY_DAYS,
          `expiresInDays must be an integer from ${MIN_SIGNING_EXPIRY_DAYS} to ${MAX_SIGNING_EXPIRY_DAYS}`,
        ),
    )
    .default(DEFAULT_SIGNING_EXPIRY_DAYS)
    .meta({
      description: `Days until the link expires (${MIN_SIGNING_EXPIRY_DAYS}-${MAX_SIGNING_EXPIRY_DAYS}, default ${DEFAULT_SIGNING_EXPIRY_DAYS})`,
    }),
});

/** A request of POST /api/v1/send, for the OpenAPI document and the Postman collection. */
export const SEND_EXAMPLE = {
  recipientEmail: 'ada@example.com',
  recipientName: 'Ada Lovelace',
  subject: 'Please sign: contract.pdf',
  message: 'Hi Ada, here is the contract we discussed.',
  positions: [{ x: 60, y: 80, page: 0, width: 30 }],
};

export const ZSendResult = named(
  'SendResult',
  'A signing request: the recipient was (or is about to be) emailed a signing link.',
  z.object({
    sendId: ZSendId.meta({ example: 'send_4f7Qm2XkT9bLw8RzNc3Ya6Ud' }),
    auditId: ZAuditId.meta({
      description: 'The audit ID the signed document will carry; GET /api/v1/status takes it',
      example: 'ESG-7KQ2-M4XP-9D3F',
    }),
    recipientEmail: z.string(),
    sentAt: ZIsoTimestamp,
    status: z.enum(['pending', 'signed', 'declined', 'canceled', 'expired']).meta({
      description: 'pending for a new request (a replay answers the current status)',
    }),
    expiresAt: ZIsoTimestamp,
  }),
);

export const ZPublicSigningStatus = named(
  'SigningStatus',
  'Where a signing request stands: exactly these fields per status.',
  z.discriminatedUnion('status', [
    z.object({
      auditId: ZAuditId,
      status: z.literal('pending'),
      signerName: z.string(),
      signerEmail: z.string(),
      viewedAt: ZIsoTimestamp.nullable().meta({
        description: "null until the recipient's browser has shown the document",
      }),
    }),
    z.object({
      auditId: ZAuditId,
      status: z.literal('signed'),
      signerName: z.string(),
      signerEmail: z.string(),
      signedAt: ZIsoTimestamp,
      fileHash: ZFileHash.meta({ description: 'sha256: of the signed PDF (as in GET /api/v1/documents)' }),
    }),
    z.object({
      auditId: ZAuditId,
      status: z.literal('declined'),
      declinedAt: ZIsoTimestamp,
      declineReason: z.string(),
    }),
    z.object({ auditId: ZAuditId, status: z.literal('expired'), expiredAt: ZIsoTimestamp }),
    z.object({ auditId: ZAuditId, status: z.literal('canceled'), canceledAt: ZIsoTimestamp }),
  ]),
);

export const ZCancelResult = named(
  'SendCanceled',
  'The request is canceled: its links no longer work and the recipient is told.',
  z.object({ sendId: ZSendId, status: z.literal('canceled'), canceledAt: ZIsoTimestamp }),
);

export const ZResendResult = named(
  'SendResent',
  'A new email with a new link is on its way; earlier links no longer work. The expiry is unchanged.',
  z.object({ sendId: ZSendId, status: z.literal('pending'), expiresAt: ZIsoTimestamp }),
);

/** The path of cancel and resend. */
export const ZSendIdParams = z.object({
  sendId: z
    .string()
    .meta({ description: 'The sendId from POST /api/v1/send', example: 'send_4f7Qm2XkT9bLw8RzNc3Ya6Ud' }),
});

const ID_ERROR = 'auditId must be an audit ID (ESG-XXXX-XXXX-XXXX) or a send ID (send_…)';

/** The query of GET /api/v1/status. */
export const ZSigningStatusQuery = z.object({
  auditId: z.string({ error: 'auditId is required' }).min(1, 'auditId is required').max(100, ID_ERROR).meta({
    description: 'The audit ID from POST /api/v1/send (its sendId is accepted too)',
    example: 'ESG-7KQ2-M4XP-9D3F',
  }),
});
