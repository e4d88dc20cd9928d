import { z } from 'zod';
import { ZAuditId, ZIsoTimestamp, ZPosition } from '@esign/contracts';
import { named } from '../api/named';

export const ZLinkEnded = named(
  'SigningLinkEnded',
  'The link can no longer be used: the request was signed, declined, canceled or expired.',
  z.object({
    error: z.string(),
    status: z.enum(['signed', 'declined', 'canceled', 'expired']),
  }),
);

export const ZSigningRequestView = named(
  'SigningRequestView',
  'What the signing page shows about a pending request.',
  z.object({
    status: z.literal('pending'),
    fileName: z.string(),
    recipientName: z.string(),
    recipientEmail: z.string(),
    senderEmail: z.string(),
    message: z.string().nullable().meta({
      description:
        "The sender's message, as the email carried it (null without one); the page shows it as text, never as HTML",
    }),
    auditId: ZAuditId,
    positions: z.array(ZPosition),
    pageCount: z.number().int().positive().nullable(),
    expiresAt: ZIsoTimestamp,
    viewedAt: ZIsoTimestamp.nullable(),
  }),
);
