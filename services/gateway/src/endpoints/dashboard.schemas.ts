import { z } from 'zod';
import { ZIsoTimestamp } from '@esign/contracts';
import { named } from '../api/named';

export const ZDashboardSigned = named(
  'DashboardSigned',
  'A document signed from the dashboard: its record is durable; download the PDF from `downloadUrl`.',
  z.object({
    auditId: z.string().meta({ example: 'ESG-7KQ2-M4XP-9D3F' }),
    signedAt: ZIsoTimestamp,
    fileHash: z.string().meta({ description: 'sha256: of the signed PDF' }),
    fileName: z.string().meta({ description: 'The name the signed PDF downloads as' }),
    size: z.number().int(),
    replayed: z.boolean().meta({ description: 'An earlier request with the same Idempotency-Key made it' }),
    downloadUrl: z.string().meta({ example: '/api/documents/ESG-7KQ2-M4XP-9D3F/pdf' }),
  }),
);

export const ZSentRequestList = named(
  'SentRequestList',
  "The account's requests sent for signing, newest first, with their status.",
  z.object({
    requests: z.array(
      z.object({
        sendId: z.string().meta({ example: 'send_3kTq9ZbW1xYv7LmN2pQr' }),
        auditId: z.string().meta({ example: 'ESG-7KQ2-M4XP-9D3F' }),
        fileName: z.string(),
        subject: z.string(),
        recipientName: z.string(),
        recipientEmail: z.string(),
        status: z.enum(['pending', 'signed', 'declined', 'canceled', 'expired']).meta({
          description: 'As GET /api/v1/status says it: a pending request past its expiry is expired',
        }),
        sentAt: ZIsoTimestamp,
        expiresAt: ZIsoTimestamp,
        viewedAt: ZIsoTimestamp.nullable(),
        endedAt: ZIsoTimestamp.nullable().meta({
          description: 'When it was signed, declined, canceled or expired; null while pending',
        }),
        declineReason: z.string().nullable(),
      }),
    ),
    total: z.number().int(),
    page: z.number().int(),
    pages: z.number().int(),
  }),
);
