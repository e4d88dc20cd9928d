import {
  DocumentGet,
  DocumentList,
  ServiceError,
  signedFileNameFor,
  ZAuditId,
  type TDocumentDetail,
} from '@esign/contracts';
import { z } from 'zod';
import { defineAccountOperation, type AccountMount } from '../api/account-operation';
import { SIGNED_PDF_FILE_HEADERS } from '../api/common-headers';
import type { HeaderDeclaration } from '../api/operation';
import type { GatewayDeps } from '../deps';
import { attachment } from '../http/content-disposition';
import { ISO_DATE, ZDocumentList, ZListDocumentsQuery, ZPublicDocumentDetail } from './documents.schemas';

// An account's signed documents, for its API keys (/api/v1/documents) and for its dashboard session
// (/api/documents, whose answers are never cached).

const DAY_MS = 24 * 60 * 60 * 1000;
/** Instants from here on cannot be written as ISO 8601 with four-digit years. */
const END_OF_TIME = Date.parse('9999-12-31T23:59:59.999Z');

const ZAuditIdParams = z.object({
  auditId: z.string().meta({ description: 'The audit ID', example: 'ESG-7KQ2-M4XP-9D3F' }),
});

/** Headers of a stored signed PDF's download. */
const SIGNED_PDF_DOWNLOAD_HEADERS: Record<string, HeaderDeclaration> = {
  ...SIGNED_PDF_FILE_HEADERS,
  'Cache-Control': { description: 'no-store', schema: z.string() },
};

/** The document operations at `/api/v1/documents…` for keys and `/api/documents…` for the dashboard. */
const mounts = (
  subpath: string,
  apiKeyId: string,
  sessionId: string,
  dashboard: Pick<AccountMount, 'summary' | 'description'>,
) => ({
  apiKey: { id: apiKeyId, path: `/api/v1/documents${subpath}`, tag: 'Documents' },
  session: {
    id: sessionId,
    path: `/api/documents${subpath}`,
    tag: 'Dashboard',
    noStore: true as const,
    ...dashboard,
  },
});

/** The dashboard's forms of the document operations: their own summary and description. */
const DASHBOARD_TEXTS = {
  listDocuments: {
    summary: "The signed-in account's documents",
    description:
      'The same list as GET /api/v1/documents (search, date range, sort, paging, cursor), for the dashboard: takes the session cookie, never an API key.',
  },
  getDocument: {
    summary: 'One document of the signed-in account, with its audit log',
    description:
      "As GET /api/v1/documents/{auditId}, for the dashboard (session cookie). Another account's, an unknown or a malformed audit ID: 404.",
  },
  downloadDocument: {
    description:
      "The signed PDF of one of the signed-in account's documents, as an attachment (session cookie). Another account's, an unknown or a malformed audit ID: 404.",
  },
} satisfies Record<string, Pick<AccountMount, 'summary' | 'description'>>;

/** One of an account's documents with its audit log; 404 for a malformed, unknown or foreign audit ID. */
const documentOf = async (
  deps: Pick<GatewayDeps, 'bus'>,
  accountId: string,
  auditId: string,
): Promise<TDocumentDetail> => {
  if (!ZAuditId.safeParse(auditId).success) {
    throw new ServiceError('not_found', `No document with audit ID ${auditId.slice(0, 40)}`);
  }
  return deps.bus.request(DocumentGet, { accountId, auditId });
};

export const listDocumentsOperation = defineAccountOperation({
  mounts: mounts('', 'listDocuments', 'listDashboardDocuments', DASHBOARD_TEXTS.listDocuments),
  method: 'get',
  summary: 'List signed documents',
  description:
    "The account's signed documents, a page at a time, with a file-name search, a date range and a sort. `total` and `pages` count the whole result; `totalExact` is false only when a search or date range matches more than 200 documents, and `total` is then the database's estimate. For deep paging follow `nextCursor` (send it back as `cursor`) instead of raising `page`.",
  auth: 'account',
  request: { query: ZListDocumentsQuery },
  responses: { 200: { description: 'A page of documents', json: ZDocumentList } },
  errors: ['invalid_argument', 'unavailable', 'internal'],
  async handle({ query: q, caller }, deps) {
    const signedFrom = q.dateFrom ? new Date(Date.parse(q.dateFrom)).toISOString() : undefined;
    // dateTo is inclusive: the bound is the instant after it (none past the end of year 9999).
    const before = q.dateTo ? Date.parse(q.dateTo) + (ISO_DATE.test(q.dateTo) ? DAY_MS : 1) : undefined;
    const signedBefore =
      before !== undefined && before <= END_OF_TIME ? new Date(before).toISOString() : undefined;
    if (signedFrom && signedBefore && signedFrom >= signedBefore) {
      throw new ServiceError('invalid_argument', 'dateFrom must not be after dateTo', 'dateFrom');
    }
    const page = await deps.bus.request(DocumentList, {
      accountId: caller.accountId,
      page: q.page,
      limit: q.limit,
      search: q.search,
      signedFrom,
      signedBefore,
      sortBy: q.sortBy,
      sortDir: q.sortDir,
      cursor: q.cursor,
    });
    return { status: 200, json: page };
  },
});

export const getDocumentOperation = defineAccountOperation({
  mounts: mounts('/{auditId}', 'getDocument', 'getDashboardDocument', DASHBOARD_TEXTS.getDocument),
  method: 'get',
  summary: 'One document with its audit log',
  description:
    "A signed document of the account with its whole hash-chained audit log. An unknown audit ID, a malformed one and another account's document all answer 404 (existence is never revealed).",
  auth: 'account',
  request: { params: ZAuditIdParams },
  responses: { 200: { description: 'The document', json: ZPublicDocumentDetail } },
  errors: ['not_found', 'unavailable', 'internal'],
  async handle({ params, caller }, deps) {
    return { status: 200, json: await documentOf(deps, caller.accountId, params.auditId) };
  },
});

export const downloadDocumentOperation = defineAccountOperation({
  mounts: mounts(
    '/{auditId}/pdf',
    'downloadDocument',
    'downloadDashboardDocument',
    DASHBOARD_TEXTS.downloadDocument,
  ),
  method: 'get',
  summary: 'Download a signed PDF',
  description:
    "The signed PDF of one of the account's documents (signed through POST /api/v1/sign, the dashboard or a send-for-signing request), as an attachment. `X-File-Hash` is the document's `fileHash` (the SHA-256 of exactly these bytes). An unknown audit ID, a malformed one and another account's document all answer 404.",
  auth: 'account',
  request: { params: ZAuditIdParams },
  responses: {
    200: { description: 'The signed PDF', binary: 'application/pdf', headers: SIGNED_PDF_DOWNLOAD_HEADERS },
  },
  errors: ['not_found', 'unavailable', 'internal'],
  async handle({ params, caller }, deps) {
    const document = await documentOf(deps, caller.accountId, params.auditId);
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
  },
});
