import { ServiceError, ZAuditId, ZIsoTimestamp } from '@esign/contracts';
import { z } from 'zod';
import { defineOperation, type OperationResult } from '../api/operation';
import { isSigningToken, signingTokenHash } from '../http/signing-token';
import { LINK_PAGE_HEADERS, linkMessagePage, linkTokenOf } from '../http/link-pages';
import { loadWebPage } from '../http/web-pages';
import {
  EMPTY_SIGNATURE,
  hasVisible,
  pageSignature,
  ZPageDecline,
  ZPageSignature,
} from './link-page.schemas';
import { ZLinkEnded, ZSigningRequestView } from './signing-page.schemas';
import { declineThroughLink } from '../operations/decline-through-link';
import { openLinkDocument } from '../operations/open-link-document';
import { recordLinkView } from '../operations/record-link-view';
import {
  ENDED_MESSAGES,
  findLink,
  findPending,
  LinkEndedError,
  signThroughLink,
  UNKNOWN_LINK_MESSAGE,
} from '../operations/sign-through-link';

/**
 * The public signing page and the calls it makes. The link in the email is `/s/<token>`: its GET
 * only shows the page (mail scanners that follow links change nothing); the page's script then
 * sends the token in the `X-Signing-Token` header of every call, so it appears in one URL only, and
 * that URL is logged and traced as `/s/:token`.
 */

const ENDED_TITLES: Record<keyof typeof ENDED_MESSAGES, string> = {
  signed: 'Already signed',
  declined: 'Request declined',
  canceled: 'Request canceled',
  expired: 'Link expired',
};

/** The token of a page call, hashed; an absent or malformed one is an unknown link (404). */
const tokenOf = (headers: { 'X-Signing-Token'?: string | undefined }) =>
  linkTokenOf(headers, UNKNOWN_LINK_MESSAGE);

const ZTokenHeaders = z.object({
  'X-Signing-Token': z.string().max(200).optional().meta({
    description: 'The token of the signing link (the part after /s/)',
  }),
});

const ENDED_RESPONSE = { description: 'The link has ended', json: ZLinkEnded };

/** Answers a handler's `LinkEndedError` as 410 with the reason. */
const answeringEnded = async (work: () => Promise<OperationResult>): Promise<OperationResult> => {
  try {
    return await work();
  } catch (err) {
    if (err instanceof LinkEndedError) {
      return {
        status: 410,
        json: { error: err.message, status: err.status },
        headers: { 'Cache-Control': 'no-store' },
      };
    }
    throw err;
  }
};

export const openSigningPageOperation = defineOperation({
  id: 'openSigningPage',
  method: 'get',
  path: '/s/{token}',
  tag: 'Signing page',
  summary: 'The signing page of a link',
  description:
    'The page a recipient opens from the email. Opening it changes nothing (mail scanners follow links). An unknown or replaced link answers 404, a link whose request was signed, declined, canceled or has expired answers 410, each with a page that says so.',
  auth: 'none',
  dashboard: true,
  request: {
    params: z.object({ token: z.string().meta({ description: 'The token of the signing link' }) }),
  },
  responses: {
    200: { description: 'The signing page', html: true },
    404: { description: 'Not a valid link', html: true },
    410: { description: 'The link has ended', html: true },
  },
  errors: ['unavailable', 'internal'],
  async handle({ params }, deps) {
    if (!isSigningToken(params.token)) {
      return {
        status: 404,
        html: linkMessagePage('Link not valid', UNKNOWN_LINK_MESSAGE),
        headers: LINK_PAGE_HEADERS,
      };
    }
    const request = await findLink(deps.signingLink, signingTokenHash(params.token));
    if (!request) {
      return {
        status: 404,
        html: linkMessagePage('Link not valid', UNKNOWN_LINK_MESSAGE),
        headers: LINK_PAGE_HEADERS,
      };
    }
    if (request.status !== 'pending') {
      return {
        status: 410,
        html: linkMessagePage(ENDED_TITLES[request.status], ENDED_MESSAGES[request.status]),
        headers: LINK_PAGE_HEADERS,
      };
    }
    const html = loadWebPage('signing');
    if (html === undefined) {
      throw new ServiceError('unavailable', 'The signing page is not built: run `pnpm build:web`.');
    }
    return { status: 200, html, headers: LINK_PAGE_HEADERS };
  },
});

export const getSigningRequestOperation = defineOperation({
  id: 'getSigningRequest',
  method: 'get',
  path: '/signing/api/request',
  tag: 'Signing page',
  summary: 'The request behind a signing link',
  description:
    'Who asks whom to sign what, and where the signature boxes go. Changes nothing. 404 for an unknown link, 410 for one that has ended.',
  auth: 'none',
  dashboard: true,
  request: { headers: ZTokenHeaders },
  responses: { 200: { description: 'The request', json: ZSigningRequestView }, 410: ENDED_RESPONSE },
  errors: ['not_found', 'unavailable', 'internal'],
  handle: ({ headers }, deps) =>
    answeringEnded(async () => {
      const request = await findPending(deps.signingLink, tokenOf(headers).hash);
      return { status: 200, json: request, headers: { 'Cache-Control': 'no-store' } };
    }),
});

export const getSigningDocumentOperation = defineOperation({
  id: 'getSigningDocument',
  method: 'get',
  path: '/signing/api/document',
  tag: 'Signing page',
  summary: 'The PDF to sign',
  description: 'The original PDF of a pending request, for the page to show. Changes nothing.',
  auth: 'none',
  dashboard: true,
  request: { headers: ZTokenHeaders },
  responses: { 200: { description: 'The PDF', binary: 'application/pdf' }, 410: ENDED_RESPONSE },
  errors: ['not_found', 'unavailable', 'internal'],
  handle: ({ headers }, deps) =>
    answeringEnded(async () => {
      const { stream, size } = await openLinkDocument(deps.signingLink, tokenOf(headers).hash);
      return {
        status: 200,
        stream,
        contentType: 'application/pdf',
        size,
        headers: { 'Cache-Control': 'no-store', 'Content-Disposition': 'inline' },
      };
    }),
});

export const recordSigningViewOperation = defineOperation({
  id: 'recordSigningView',
  method: 'post',
  path: '/signing/api/view',
  tag: 'Signing page',
  summary: 'The document was shown',
  description:
    "The page reports that the recipient's browser has shown the document: the first report sets viewedAt; every one is in the audit trail with its IP and user agent.",
  auth: 'none',
  dashboard: true,
  originCheck: 'ifSent',
  request: { headers: ZTokenHeaders },
  responses: {
    200: {
      description: 'Recorded',
      json: z.object({ viewedAt: ZIsoTimestamp }),
    },
    410: ENDED_RESPONSE,
  },
  errors: ['not_found', 'unavailable', 'internal'],
  handle: ({ headers, client }, deps) =>
    answeringEnded(async () => {
      const viewed = await recordLinkView(deps.signingLink, {
        tokenHash: tokenOf(headers).hash,
        ipAddress: client.ip,
        userAgent: client.userAgent,
      });
      return { status: 200, json: { viewedAt: viewed.viewedAt } };
    }),
});

export const ZPageSignRequest = z.object({
  signerName: z
    .string({ error: 'Please confirm your full name.' })
    .trim()
    .max(200, 'Your name must be at most 200 characters.')
    .refine(hasVisible, 'Please confirm your full name.'),
  signature: ZPageSignature({ empty: EMPTY_SIGNATURE, what: 'signature' }),
});

export const signThroughLinkOperation = defineOperation({
  id: 'signThroughLink',
  method: 'post',
  path: '/signing/api/sign',
  tag: 'Signing page',
  summary: 'Sign from the signing page',
  description:
    'Signs the request with the drawn (PNG) or typed signature, through the same workflow as POST /api/v1/sign, with the recipient as signer. One submit at a time: a second one while the first runs answers 409, and after signing the link answers 410.',
  auth: 'none',
  dashboard: true,
  originCheck: 'ifSent',
  request: {
    headers: ZTokenHeaders,
    json: ZPageSignRequest,
    example: {
      signerName: 'Ada Lovelace',
      signature: { mode: 'type', typedName: 'Ada Lovelace', color: '#1e3a8a' },
    },
  },
  responses: {
    200: {
      description: 'Signed',
      json: z.object({ status: z.literal('signed'), auditId: ZAuditId, signedAt: ZIsoTimestamp }),
    },
    410: ENDED_RESPONSE,
  },
  errors: ['invalid_argument', 'not_found', 'conflict', 'unavailable', 'internal'],
  handle: ({ headers, body, client, receivedAt }, deps) =>
    answeringEnded(async () => {
      const token = tokenOf(headers);
      const signature = pageSignature(body.signature, 'signature');
      const signed = await signThroughLink(deps.signingLink, {
        token,
        signature,
        signerName: body.signerName,
        ipAddress: client.ip,
        userAgent: client.userAgent,
        receivedAt,
        deadline: Date.now() + deps.config.SIGN_TIMEOUT_MS,
      });
      return { status: 200, json: { status: 'signed', auditId: signed.auditId, signedAt: signed.signedAt } };
    }),
});

export const declineThroughLinkOperation = defineOperation({
  id: 'declineThroughLink',
  method: 'post',
  path: '/signing/api/decline',
  tag: 'Signing page',
  summary: 'Decline from the signing page',
  description:
    'Declines the request with a reason (required); the sender is told by email. The link then answers 410.',
  auth: 'none',
  dashboard: true,
  originCheck: 'ifSent',
  request: {
    headers: ZTokenHeaders,
    json: ZPageDecline,
    example: { reason: 'The amount in section 2 is wrong.' },
  },
  responses: {
    200: {
      description: 'Declined',
      json: z.object({ status: z.literal('declined'), declinedAt: ZIsoTimestamp }),
    },
    410: ENDED_RESPONSE,
  },
  errors: ['invalid_argument', 'not_found', 'conflict', 'unavailable', 'internal'],
  handle: ({ headers, body, client }, deps) =>
    answeringEnded(async () => {
      const declined = await declineThroughLink(deps.signingLink, {
        tokenHash: tokenOf(headers).hash,
        reason: body.reason,
        ipAddress: client.ip,
        userAgent: client.userAgent,
      });
      return { status: 200, json: { status: 'declined', declinedAt: declined.declinedAt } };
    }),
});
