import { SigningList } from '@esign/contracts';
import { z } from 'zod';
import { defineOperation } from '../api/operation';
import { ZIdempotencyHeaders } from '../api/public-schemas';
import { intQueryParam } from '../api/query-params';
import { ZDashboardSigned, ZSentRequestList } from './dashboard.schemas';
import { SIGN_EXAMPLE, SIGN_MULTIPART, signUploadedForm } from './sign-form';

// The dashboard's own operations, for the signed-in session (cookie) only, that have no /api/v1 form
// of the same shape. (Those that do are declared once and offered to both: documents.ts, webhooks.ts.)

const NO_STORE = { 'Cache-Control': 'no-store' };
const NO_STORE_HEADER = { 'Cache-Control': { description: 'no-store', schema: z.string() } };

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
  request: { headers: ZIdempotencyHeaders, multipart: SIGN_MULTIPART, example: SIGN_EXAMPLE },
  responses: { 201: { description: 'Signed', json: ZDashboardSigned, headers: NO_STORE_HEADER } },
  errors: ['invalid_argument', 'permission_denied', 'conflict', 'too_large', 'unavailable', 'internal'],
  async handle(input, deps) {
    const signed = await signUploadedForm(deps, input.caller, input);
    deps.logger.info('document signed from the dashboard', {
      auditId: signed.auditId,
      bytes: input.file.size,
    });
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
      page: intQueryParam('page', 1, 1_000_000).default(1).meta({ description: '1-indexed page' }),
      limit: intQueryParam('limit', 1, 100)
        .default(20)
        .meta({ description: 'Requests per page, at most 100' }),
    }),
  },
  responses: {
    200: { description: 'A page of sent requests', json: ZSentRequestList, headers: NO_STORE_HEADER },
  },
  errors: ['invalid_argument', 'unavailable', 'internal'],
  async handle({ query, caller }, deps) {
    const list = await deps.bus.request(SigningList, {
      accountId: caller.accountId,
      page: query.page,
      limit: query.limit,
    });
    return { status: 200, headers: NO_STORE, json: list };
  },
});
