import { SigningList } from '@esign/contracts';
import { z } from 'zod';
import { ZDashboardSigned, ZSentRequestList } from '../api/account-schemas';
import { defineOperation } from '../api/operation';
import { ZDocumentList, ZIdempotencyHeaders, ZPublicDocumentDetail } from '../api/public-schemas';
import {
  documentOf,
  listDocumentsOf,
  signedPdfOf,
  SIGNED_PDF_DOWNLOAD_HEADERS,
  ZListDocumentsQuery,
} from './documents';
import { SIGN_MULTIPART, signUploadedForm } from './sign';

// The dashboard's own view of documents and its signing, for the signed-in session (cookie) only:
// the same queries and the same sign workflow as /api/v1, scoped to the session's account. An API
// key never works here, and the cookie never works on /api/v1.

const NO_STORE = { 'Cache-Control': 'no-store' };
const NO_STORE_HEADER = { 'Cache-Control': { description: 'no-store', schema: z.string() } };

const ZAuditIdParams = z.object({
  auditId: z.string().meta({ description: 'The audit ID', example: 'ESG-7KQ2-M4XP-9D3F' }),
});

export const listDashboardDocumentsOperation = defineOperation({
  id: 'listDashboardDocuments',
  method: 'get',
  path: '/api/documents',
  tag: 'Dashboard',
  summary: "The signed-in account's documents",
  description:
    'The same list as GET /api/v1/documents (search, date range, sort, paging, cursor), for the dashboard: takes the session cookie, never an API key.',
  auth: 'session',
  request: { query: ZListDocumentsQuery },
  responses: { 200: { description: 'A page of documents', json: ZDocumentList, headers: NO_STORE_HEADER } },
  errors: ['invalid_argument', 'unavailable', 'internal'],
  async handle({ query, session }, deps) {
    if (!session) throw new Error('listDashboardDocuments needs a session');
    return { status: 200, headers: NO_STORE, json: await listDocumentsOf(deps, session.accountId, query) };
  },
});

export const getDashboardDocumentOperation = defineOperation({
  id: 'getDashboardDocument',
  method: 'get',
  path: '/api/documents/{auditId}',
  tag: 'Dashboard',
  summary: 'One document of the signed-in account, with its audit log',
  description:
    "As GET /api/v1/documents/{auditId}, for the dashboard (session cookie). Another account's, an unknown or a malformed audit ID: 404.",
  auth: 'session',
  request: { params: ZAuditIdParams },
  responses: { 200: { description: 'The document', json: ZPublicDocumentDetail, headers: NO_STORE_HEADER } },
  errors: ['not_found', 'unavailable', 'internal'],
  async handle({ params, session }, deps) {
    if (!session) throw new Error('getDashboardDocument needs a session');
    return {
      status: 200,
      headers: NO_STORE,
      json: await documentOf(deps, session.accountId, params.auditId),
    };
  },
});

export const downloadDashboardDocumentOperation = defineOperation({
  id: 'downloadDashboardDocument',
  method: 'get',
  path: '/api/documents/{auditId}/pdf',
  tag: 'Dashboard',
  summary: 'Download a signed PDF',
  description:
    "The signed PDF of one of the signed-in account's documents, as an attachment (session cookie). Another account's, an unknown or a malformed audit ID: 404.",
  auth: 'session',
  request: { params: ZAuditIdParams },
  responses: {
    200: { description: 'The signed PDF', binary: 'application/pdf', headers: SIGNED_PDF_DOWNLOAD_HEADERS },
  },
  errors: ['not_found', 'unavailable', 'internal'],
  async handle({ params, session }, deps) {
    if (!session) throw new Error('downloadDashboardDocument needs a session');
    return signedPdfOf(deps, session.accountId, params.auditId);
  },
});

export const dashboardSignOperation = defineOperation({
  id: 'dashboardSign',
  method: 'post',
  path: '/api/sign',
  tag: 'Dashboard',
  summary: 'Sign a document from the dashboard',
  description:
    "The dashboard's signing (session cookie, Origin of this site and X-CSRF-Token): the same fields and the same sign workflow as POST /api/v1/sign, for every plan (Free and Pro have no API access but sign here), counted against the plan's monthly quota (403 when it is used up) and limited to the plan's file size (413). Answers where the signed PDF is rather than the PDF itself. An `Idempotency-Key` makes a double submit sign once.",
  auth: 'session',
  idempotent: true,
  request: {
    headers: ZIdempotencyHeaders,
    multipart: SIGN_MULTIPART,
    example: {
      signerName: 'Ada Lovelace',
      signerEmail: 'ada@example.com',
      mode: 'type',
      typedName: 'Ada Lovelace',
      positions: [{ x: 60, y: 80, page: 0, width: 30 }],
    },
  },
  responses: { 201: { description: 'Signed', json: ZDashboardSigned, headers: NO_STORE_HEADER } },
  errors: ['invalid_argument', 'permission_denied', 'conflict', 'too_large', 'unavailable', 'internal'],
  async handle(input, deps) {
    const { session, file } = input;
    if (!session || !file) throw new Error('dashboardSign needs a session and a file');
    const signed = await signUploadedForm(deps, session, { ...input, file });
    deps.logger.info('document signed from the dashboard', { auditId: signed.auditId, bytes: file.size });
    return {
      status: 201,
      headers: NO_STORE,
      json: {
        auditId: signed.auditId,
        signedAt: signed.signedAt,
        fileHash: signed.fileHash,
        fileName: signed.downloadName,
        size: signed.size,
        replayed: signed.replayed,
        downloadUrl: `/api/documents/${signed.auditId}/pdf`,
      },
    };
  },
});

const pageParam = (name: string, min: number, max: number) => {
  const error = `${name} must be an integer from ${min} to ${max}`;
  return z.preprocess(
    (v) => (typeof v === 'string' ? Number(v) : v),
    z.number({ error }).int(error).min(min, error).max(max, error),
  );
};

export const listSentRequestsOperation = defineOperation({
  id: 'listSentRequests',
  method: 'get',
  path: '/api/sends',
  tag: 'Dashboard',
  summary: "The signed-in account's requests sent for signing",
  description:
    'Every request sent with POST /api/v1/send, newest first, with its recipient, status (as GET /api/v1/status says it) and when it was sent, viewed and ended. For the dashboard (session cookie).',
  auth: 'session',
  request: {
    query: z.object({
      page: pageParam('page', 1, 1_000_000).default(1).meta({ description: '1-indexed page' }),
      limit: pageParam('limit', 1, 100).default(20).meta({ description: 'Requests per page, at most 100' }),
    }),
  },
  responses: {
    200: { description: 'A page of sent requests', json: ZSentRequestList, headers: NO_STORE_HEADER },
  },
  errors: ['invalid_argument', 'unavailable', 'internal'],
  async handle({ query, session }, deps) {
    if (!session) throw new Error('listSentRequests needs a session');
    const list = await deps.bus.request(SigningList, {
      accountId: session.accountId,
      page: query.page,
      limit: query.limit,
    });
    return { status: 200, headers: NO_STORE, json: list };
  },
});
