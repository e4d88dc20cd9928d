import {
  DEFAULT_ENVELOPE_EXPIRY_DAYS,
  MAX_ENVELOPE_EXPIRY_DAYS,
  MAX_ENVELOPE_RECIPIENTS,
  MAX_SIGNING_MESSAGE_LENGTH,
  MAX_SIGNING_SUBJECT_LENGTH,
  MIN_ENVELOPE_EXPIRY_DAYS,
  ZEnvelope,
  ZEnvelopeId,
  ZEnvelopeRecipientInput,
  ZEnvelopeStatus,
  ZRecipientId,
  ZReminderSettings,
} from '@esign/contracts';
import { z } from 'zod';
import { named } from '../api/named';

/** The public schemas of envelopes (POST/GET /api/v1/envelopes and the actions on one). */

/** A form field that carries JSON: parsed first, then validated with `schema` (errors name the JSON's path). */
const jsonField = <S extends z.ZodType>(name: string, shape: string, schema: S) =>
  z.preprocess((v, ctx) => {
    if (typeof v !== 'string') return v;
    try {
      return JSON.parse(v) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: `${name} must be ${shape}` });
      return z.NEVER;
    }
  }, schema);

const EXPIRY_RULE = `expiresInDays must be an integer from ${MIN_ENVELOPE_EXPIRY_DAYS} to ${MAX_ENVELOPE_EXPIRY_DAYS}`;

export const ZEnvelopeFields = z.object({
  recipients: jsonField(
    'recipients',
    'a JSON array of recipients',
    z
      .array(ZEnvelopeRecipientInput, { error: 'recipients must be a JSON array of recipients' })
      .min(1, 'recipients must name at least one recipient')
      .max(MAX_ENVELOPE_RECIPIENTS, `recipients may name at most ${MAX_ENVELOPE_RECIPIENTS} recipients`),
  ).meta({
    description:
      "JSON array of {name, email, role: signer|approver|cc, order (1, 2, …: the same number acts in parallel, groups in ascending order), embedded? (true: no email; the sender's site frames the page of POST …/recipients/{recipientId}/signing-url), fields (a signer's: {type: signature|initials|date|name|email|text|checkbox, page, x, y, width, height?, required?, label?, value?})}",
  }),
  subject: z
    .string()
    .trim()
    .min(1, 'subject must not be empty')
    .max(MAX_SIGNING_SUBJECT_LENGTH, `subject must be at most ${MAX_SIGNING_SUBJECT_LENGTH} characters`)
    .regex(/^[^\r\n]*$/, 'subject must be one line')
    .optional()
    .meta({ description: 'Subject of the emails; default "Please sign: <file name>"' }),
  message: z
    .string()
    .max(MAX_SIGNING_MESSAGE_LENGTH, `message must be at most ${MAX_SIGNING_MESSAGE_LENGTH} characters`)
    .optional()
    .meta({ description: 'A personal message shown in the emails and on the signing page (plain text)' }),
  expiresInDays: z
    .preprocess(
      (v) => (typeof v === 'string' ? Number(v.trim()) : v),
      z
        .number({ error: EXPIRY_RULE })
        .int(EXPIRY_RULE)
        .min(MIN_ENVELOPE_EXPIRY_DAYS, EXPIRY_RULE)
        .max(MAX_ENVELOPE_EXPIRY_DAYS, EXPIRY_RULE),
    )
    .default(DEFAULT_ENVELOPE_EXPIRY_DAYS)
    .meta({ description: `Days until the envelope expires (default ${DEFAULT_ENVELOPE_EXPIRY_DAYS})` }),
  reminders: jsonField('reminders', 'a JSON object {firstAfterDays, everyDays, max}', ZReminderSettings)
    .optional()
    .meta({
      description:
        'JSON {firstAfterDays, everyDays, max}: reminders to a recipient whose turn came (default 3, 3, 3)',
    }),
});

export const ENVELOPE_EXAMPLE = {
  subject: 'Please sign: lease.pdf',
  recipients: [
    {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      role: 'signer',
      order: 1,
      fields: [
        { type: 'signature', page: 0, x: 10, y: 80, width: 30 },
        { type: 'date', page: 0, x: 60, y: 85, width: 20 },
      ],
    },
    { name: 'Charles Babbage', email: 'charles@example.com', role: 'approver', order: 2 },
    { name: 'Office', email: 'office@example.com', role: 'cc', order: 3 },
  ],
};

export const ZPublicEnvelope = named(
  'Envelope',
  'An envelope: one document, its recipients and where each stands.',
  ZEnvelope.omit({ replayed: true }),
);

export const ZEnvelopeIdParams = z.object({
  envelopeId: z
    .string()
    .max(100)
    .meta({ description: 'The envelope ID (env_…)', example: 'env_4f7Qm2XkT9bLw8RzNc3Ya6Ud' }),
});

export const ZEnvelopeRecipientParams = ZEnvelopeIdParams.extend({
  recipientId: z
    .string()
    .max(100)
    .meta({ description: 'The recipient ID (rcp_…)', example: 'rcp_8sKd2LmQ4xTz7VbN1cRw9YeP' }),
});

/** Who takes a recipient's place (`POST …/recipients/{recipientId}/replace`). */
export const ZReplaceRecipientRequest = named(
  'ReplaceRecipientRequest',
  "The person who takes the recipient's place: they keep the recipient's role, group and fields.",
  z.object({
    name: ZEnvelopeRecipientInput.shape.name.meta({ description: "The new person's name" }),
    email: ZEnvelopeRecipientInput.shape.email.meta({ description: "The new person's email address" }),
  }),
);

export const isRecipientId = (id: string): boolean => ZRecipientId.safeParse(id).success;

export const ZEnvelopeListQuery = z.object({
  status: ZEnvelopeStatus.optional().meta({ description: 'Only envelopes in this status' }),
  limit: z
    .preprocess((v) => (typeof v === 'string' ? Number(v) : v), z.number().int().min(1).max(100))
    .default(20)
    .meta({ description: 'At most this many (1-100, default 20)' }),
  cursor: z.string().max(500).optional().meta({ description: 'nextCursor of the previous page' }),
});

export const ZEnvelopeList = named(
  'EnvelopeList',
  'A page of envelopes, newest first.',
  z.object({ envelopes: z.array(ZPublicEnvelope), nextCursor: z.string().nullable() }),
);

export const isEnvelopeId = (id: string): boolean => ZEnvelopeId.safeParse(id).success;
