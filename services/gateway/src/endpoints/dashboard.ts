import { SigningList } from '@esign/contracts';
import { z } from 'zod';
import { defineOperation } from '../api/operation';
import { intQueryParam } from '../api/query-params';
import { ZSentRequestList } from './dashboard.schemas';

// The dashboard's own operations, for the signed-in session (cookie) only, with no /api/v1 form. (Those
// with one are declared once and offered to both: documents.ts, sign.ts, webhooks.ts.)

const NO_STORE = { 'Cache-Control': 'no-store' };
const NO_STORE_HEADER = { 'Cache-Control': { description: 'no-store', schema: z.string() } };

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
