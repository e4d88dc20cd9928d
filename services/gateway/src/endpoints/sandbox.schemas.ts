import { z } from 'zod';
import { ZAuditId, ZFileHash, ZIsoTimestamp } from '@esign/contracts';
import { named } from '../api/named';

export const ZSandboxSignRequest = named(
  'SandboxSignRequest',
  'A document URL for the sandbox. It is never fetched.',
  z.object({
    document_url: z
      .string({ error: 'document_url is required: the http(s) URL of a document' })
      .max(2048, 'document_url must be at most 2048 characters')
      .refine((v) => /^https?:\/\//i.test(v) && URL.canParse(v), {
        message: 'document_url must be an http or https URL',
      }),
  }),
);

export const ZSandboxSignResult = named(
  'SandboxSignResult',
  'Mock signing data: a pure function of the normalised document_url (the same URL always gives the same bytes).',
  z.object({
    sandbox: z.literal(true),
    status: z.enum(['signed', 'declined']),
    auditId: ZAuditId.meta({
      description: 'Sandbox audit IDs start with SBX',
      example: 'SBX-2M7Q-K8PD-4XWN',
    }),
    documentUrl: z.string().meta({ description: 'The normalised document_url' }),
    fileName: z.string(),
    fileHash: ZFileHash,
    pageCount: z.number().int().positive(),
    signerName: z.string(),
    signerEmail: z.string(),
    signedAt: ZIsoTimestamp.nullable().meta({ description: 'null when declined' }),
    declinedAt: ZIsoTimestamp.nullable().meta({ description: 'null unless declined' }),
    declineReason: z.string().nullable(),
  }),
);
