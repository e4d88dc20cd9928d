import {
  DocumentGet,
  signedFileNameFor,
  DocumentList,
  ServiceError,
  ZAuditId,
  ZDocumentSort,
  type TDocumentDetail,
} from '@esign/contracts';
import { z } from 'zod';
import { defineOperation } from '../api/operation';
import { SIGNED_PDF_FILE_HEADERS } from '../api/common-headers';
import type { HeaderDeclaration, OperationResult } from '../api/operation';
import type { GatewayDeps } from '../deps';
import { ZDocumentList, ZPublicDocumentDetail } from '../api/public-schemas';
import { attachment } from './sign';

const DAY_MS = 24 * 60 * 60 * 1000;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
/** The range of dates a document can carry: from the first of these to the last. */
const MIN_DATE = '0001-01-01';
const MAX_DATE = '9999-12-31';
/** Instants from here on cannot be written as ISO 8601 with four-digit years. */
const END_OF_TIME = Date.parse('9999-12-31T23:59:59.999Z');

const intParam = (name: string, min: number, max: number) => {
  const error = `${name} must be an integer from ${min} to ${max}`;
  return z.preprocess(
    (v) => (typeof v === 'string' ? Number(v) : v),
    z.number({ error }).int(error).min(min, error).max(max, error),
  );
};

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
  page: intParam('page', 1, 1_000_000).default(1).meta({ description: '1-indexed page' }),
  limit: intParam('limit', 1, 100).default(20).meta({ description: 'Documents per page, at most 100' }),
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

/** A page of an account's documents (the API's and the dashboard's list). */
export const listDocumentsOf = async (
  deps: Pick<GatewayDeps, 'bus'>,
  accountId: string,
  q: z.output<typeof ZListDocumentsQuery>,
): Promise<z.output<typeof DocumentList.reply>> => {
  const signedFrom = q.dateFrom ? new Date(Date.parse(q.dateFrom)).toISOString() : undefined;
  // dateTo is inclusive: the bound is the instant after it (none past the end of year 9999).
  const before = q.dateTo ? Date.parse(q.dateTo) + (ISO_DATE.test(q.dateTo) ? DAY_MS : 1) : undefined;
  const signedBefore =
    before !== undefined && before <= END_OF_TIME ? new Date(before).toISOString() : undefined;
  if (signedFrom && signedBefore && signedFrom >= signedBefore) {
    throw new ServiceError('invalid_argument', 'dateFrom must not be after dateTo', 'dateFrom');
  }
  return deps.bus.request(DocumentList, {
    accountId,
    page: q.page,
    limit: q.limit,
    search: q.search,
    signedFrom,
    signedBefore,
    sortBy: q.sortBy,
    sortDir: q.sortDir,
    cursor: q.cursor,
  });
};

/** One of an account's documents with its audit log; 404 for a malformed, unknown or foreign audit ID. */
export const documentOf = async (
  deps: Pick<GatewayDeps, 'bus'>,
  accountId: string,
  auditId: string,
): Promise<TDocumentDetail> => {
  if (!ZAuditId.safeParse(auditId).success) {
    throw new ServiceError('not_found', `No document with audit ID ${auditId.slice(0, 40)}`);
  }
  return deps.bus.request(DocumentGet, { accountId, auditId });
};

/** Headers of a stored signed PDF's download (the API's and the dashboard's). */
export const SIGNED_PDF_DOWNLOAD_HEADERS: Record<string, HeaderDeclaration> = {
  ...SIGNED_PDF_FILE_HEADERS,
  'Cache-Control': { description: 'no-store', schema: z.string() },
};

/**
 * The signed PDF of one of an account's documents, streamed from storage as an attachment (the
 * API's and the dashboard's download); 404 for a malformed, unknown or foreign audit ID.
 */
export const signedPdfOf = async (
  deps: Pick<GatewayDeps, 'bus' | 'signing'>,
  accountId: string,
  auditId: string,
): Promise<OperationResult> => {
  const document = await documentOf(deps, accountId, auditId);
  const stream = await deps.signing.openObject(document.objectKey);
  return {
    status: 200,
    stream,
    contentType: 'application/pdf',
    size: document.size,
    headers: {
      'Content-Disposition': attachment(signedFileNameFor(document.fileName)),
      'X-Audit-Id': document.auditId,
      'X-Signed-At': document.signedAt,
      'X-File-Hash': document.fileHash,
      'Cache-Control': 'no-store',
    },
  };
};

export const listDocumentsOperation = defineOperation({
  id: 'listDocuments',
  method: 'get',
  path: '/api/v1/documents',
  tag: 'Documents',
  summary: 'List signed documents',
  description:
    "The account's signed documents, a page at a time, with a file-name search, a date range and a sort. `total` and `pages` count the whole result; `totalExact` is false only when a search or date range matches more than 200 documents, and `total` is then the database's estimate. For deep paging follow `nextCursor` (send it back as `cursor`) instead of raising `page`.",
  auth: 'apiKey',
  request: {
    query: ZListDocumentsQuery,
  },
  responses: { 200: { description: 'A page of documents', json: ZDocumentList } },
  errors: ['invalid_argument', 'unavailable', 'internal'],
  async handle({ query: q, principal }, deps) {
    if (!principal) throw new Error('listDocuments needs a principal');
    return { status: 200, json: await listDocumentsOf(deps, principal.accountId, q) };
  },
});

export const getDocumentOperation = defineOperation({
  id: 'getDocument',
  method: 'get',
  path: '/api/v1/documents/{auditId}',
  tag: 'Documents',
  summary: 'One document with its audit log',
  description:
    "A signed document of the account with its whole hash-chained audit log. An unknown audit ID, a malformed one and another account's document all answer 404 (existence is never revealed).",
  auth: 'apiKey',
  request: {
    params: z.object({
      auditId: z.string().meta({ description: 'The audit ID', example: 'ESG-7KQ2-M4XP-9D3F' }),
    }),
  },
  responses: { 200: { description: 'The document', json: ZPublicDocumentDetail } },
  errors: ['not_found', 'unavailable', 'internal'],
  async handle({ params, principal }, deps) {
    if (!principal) throw new Error('getDocument needs a principal');
    return { status: 200, json: await documentOf(deps, principal.accountId, params.auditId) };
  },
});

export const downloadDocumentOperation = defineOperation({
  id: 'downloadDocument',
  method: 'get',
  path: '/api/v1/documents/{auditId}/pdf',
  tag: 'Documents',
  summary: 'Download a signed PDF',
  description:
    "The signed PDF of one of the account's documents (signed through POST /api/v1/sign, the dashboard or a send-for-signing request), as an attachment. `X-File-Hash` is the document's `fileHash` (the SHA-256 of exactly these bytes). An unknown audit ID, a malformed one and another account's document all answer 404.",
  auth: 'apiKey',
  request: {
    params: z.object({
      auditId: z.string().meta({ description: 'The audit ID', example: 'ESG-7KQ2-M4XP-9D3F' }),
    }),
  },
  responses: {
    200: { description: 'The signed PDF', binary: 'application/pdf', headers: SIGNED_PDF_DOWNLOAD_HEADERS },
  },
  errors: ['not_found', 'unavailable', 'internal'],
  async handle({ params, principal }, deps) {
    if (!principal) throw new Error('downloadDocument needs a principal');
    return signedPdfOf(deps, principal.accountId, params.auditId);
  },
});
