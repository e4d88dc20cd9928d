import { z } from 'zod';
import { ZAuditId, ZDocumentSort, ZFileHash, ZIsoTimestamp } from '@esign/contracts';
import { named } from '../api/named';
import { intQueryParam } from '../api/query-params';

export const ZPublicDocumentRecord = named(
  'DocumentRecord',
  'A signed document, as the list shows it.',
  z.object({
    id: z.uuid(),
    fileName: z.string().meta({ description: 'The original file name' }),
    signerName: z.string(),
    signerEmail: z.string(),
    signedAt: ZIsoTimestamp,
    auditId: ZAuditId.meta({
      description: 'Audit ID, also embedded in the PDF',
      example: 'ESG-7KQ2-M4XP-9D3F',
    }),
    fileHash: ZFileHash.meta({ description: 'sha256: of exactly the signed bytes' }),
    ipAddress: z.string().meta({ description: "The signer's IP address" }),
  }),
);

export const ZPublicAuditLogEntry = named(
  'AuditLogEntry',
  "One entry of a document's audit log, hash-chained to the one before it.",
  z.object({
    event: z.string().meta({ example: 'document.signed' }),
    timestamp: ZIsoTimestamp,
    details: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
    sequence: z.number().int().nonnegative(),
    prevHash: z.string().regex(/^[0-9a-f]{64}$/),
    hash: z
      .string()
      .regex(/^[0-9a-f]{64}$/)
      .meta({ description: 'SHA-256 over the canonical JSON of this entry and prevHash' }),
  }),
);

export const ZPublicDocumentDetail = named(
  'DocumentDetail',
  'One signed document with its whole audit log.',
  ZPublicDocumentRecord.extend({
    userAgent: z.string(),
    originalHash: ZFileHash.meta({ description: 'sha256: of the original upload' }),
    size: z.number().int().meta({ description: 'Bytes of the signed PDF' }),
    pageCount: z.number().int(),
    createdAt: ZIsoTimestamp,
    auditLog: z.array(ZPublicAuditLogEntry),
  }),
);

export const ZDocumentList = named(
  'DocumentList',
  'A page of signed documents.',
  z.object({
    documents: z.array(ZPublicDocumentRecord),
    total: z.number().int().nonnegative(),
    page: z.number().int().positive(),
    pages: z.number().int().nonnegative(),
    totalExact: z.boolean().meta({
      description:
        'false only when a search or date range matches more than 200 documents: total (and pages) is then an estimate',
    }),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Send as cursor for the documents after this page; null on the last page' }),
  }),
);

/** A whole UTC day, as `dateFrom` and `dateTo` may be given. */
export const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** The range of dates a document can carry: from the first of these to the last. */
const MIN_DATE = '0001-01-01';
const MAX_DATE = '9999-12-31';

/** A real calendar date (2026-02-30 is not) in the range documents can have, as a whole UTC day or inside a date-time. */
const isRealDate = (v: string) => {
  const day = v.slice(0, 10);
  const t = Date.parse(`${day}T00:00:00Z`);
  return (
    !Number.isNaN(t) && new Date(t).toISOString().slice(0, 10) === day && day >= MIN_DATE && day <= MAX_DATE
  );
};

/** A date (whole UTC day) or a date-time; both bounds are inclusive. */
const dateParam = (name: string, description: string) => {
  const error = `${name} must be an ISO date (YYYY-MM-DD) or date-time from ${MIN_DATE} to ${MAX_DATE}`;
  return z
    .string({ error })
    .refine(
      (v) => (ISO_DATE.test(v) || z.iso.datetime({ offset: true }).safeParse(v).success) && isRealDate(v),
      { message: error },
    )
    .meta({ description, example: '2026-01-31' });
};

export const ZListDocumentsQuery = z.object({
  page: intQueryParam('page', 1, 1_000_000).default(1).meta({ description: '1-indexed page' }),
  limit: intQueryParam('limit', 1, 100).default(20).meta({ description: 'Documents per page, at most 100' }),
  search: z
    .string()
    .max(200, 'search must be at most 200 characters')
    // Postgres text cannot hold NUL; no file name contains one.
    .refine((v) => !v.includes('\u0000'), 'search must not contain NUL characters')
    .optional()
    .meta({ description: 'Part of the file name, case-insensitive' }),
  dateFrom: dateParam(
    'dateFrom',
    'Documents signed on or after (YYYY-MM-DD: from the start of that UTC day)',
  ).optional(),
  dateTo: dateParam(
    'dateTo',
    'Documents signed on or before (YYYY-MM-DD: to the end of that UTC day)',
  ).optional(),
  sortBy: z
    .enum(ZDocumentSort.options, { error: 'sortBy must be signed_at, file_name or created_at' })
    .default('signed_at')
    .meta({ description: 'signed_at, file_name or created_at' }),
  sortDir: z.enum(['asc', 'desc'], { error: 'sortDir must be asc or desc' }).default('desc'),
  cursor: z.string().min(1).max(2000, 'cursor must be at most 2000 characters').optional().meta({
    description:
      'Keyset paging: the nextCursor of the previous page. Gives the documents after it in the same sort (send the same filters); cheap however deep. Not with page > 1.',
  }),
});
