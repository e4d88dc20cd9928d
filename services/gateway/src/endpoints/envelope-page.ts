import {
  MAX_TEXT_FIELD_LENGTH,
  ServiceError,
  ZEnvelopeField,
  ZEnvelopeId,
  ZEnvelopeStatus,
  ZIsoTimestamp,
  ZOtherRecipient,
  ZRecipientRole,
  ZRecipientStatus,
} from '@esign/contracts';
import { z } from 'zod';
import { named } from '../api/named';
import { defineOperation, type OperationResult } from '../api/operation';
import { withEmbedData, type TEmbedRefusal } from '../http/embed-page-data';
import { LINK_PAGE_HEADERS, linkMessagePage, linkTokenOf } from '../http/link-pages';
import { EMPTY_SIGNATURE, pageSignature, ZPageDecline, ZPageSignature } from './link-page.schemas';
import { isSigningToken, signingTokenHash } from '../http/signing-token';
import { framedContentSecurityPolicy, loadWebPage } from '../http/web-pages';
import {
  ENVELOPE_ENDED_MESSAGES,
  EnvelopeLinkEndedError,
  UNKNOWN_ENVELOPE_LINK_MESSAGE,
  approveEnvelopeStep,
  declineEnvelopeStep,
  endingOf,
  findActingLink,
  findEnvelopeLink,
  signEnvelopeStep,
  type EnvelopeEnding,
} from '../operations/envelope-step';
import type { TEnvelopeLink } from '../operations/envelope-ports';
import {
  CODE_REQUIRED_MESSAGE,
  EnvelopeCodeRequiredError,
  requireCodeVerified,
} from '../operations/envelope-code';

/**
 * The page a recipient of an envelope opens from their email (`/e/<token>`) and the calls it makes, as
 * for send's page: the GET changes nothing; the page's script sends the token in `X-Signing-Token`, and
 * logs and traces see `/e/:token`.
 */

export const TAG = 'Envelope signing page';

/** The page of an embedded link: framed by the account's embed origins only (frame-ancestors). */
const framedPageHeaders = (origins: readonly string[]) => ({
  ...LINK_PAGE_HEADERS,
  'Content-Security-Policy': framedContentSecurityPolicy(origins),
});

const USED_EMBEDDED_LINK_MESSAGE =
  'This signing link was already opened: each one opens once. Reload the page that showed it to get a new one.';

const ENDED_TITLES: Record<EnvelopeEnding, string> = {
  completed: 'Envelope complete',
  declined: 'Envelope declined',
  canceled: 'Envelope canceled',
  expired: 'Link expired',
  acted: 'Already done',
};

/** Why a link's page cannot be used: the envelope or the recipient's part ended, or an embedded link was used. */
const refusalOf = (link: TEnvelopeLink): TEmbedRefusal | undefined => {
  const ending = endingOf(link);
  if (ending)
    return { status: ending, title: ENDED_TITLES[ending], message: ENVELOPE_ENDED_MESSAGES[ending] };
  if (link.embedded && link.linkUsedAt) {
    return { status: 'used', title: 'Link already used', message: USED_EMBEDDED_LINK_MESSAGE };
  }
  return undefined;
};

/** The token of a page call, hashed; an absent or malformed one is an unknown link (404). */
export const tokenOf = (headers: { 'X-Signing-Token'?: string | undefined }) =>
  linkTokenOf(headers, UNKNOWN_ENVELOPE_LINK_MESSAGE);

export const ZTokenHeaders = z.object({
  'X-Signing-Token': z.string().max(200).optional().meta({
    description: 'The token of the envelope link (the part after /e/)',
  }),
});

export const ZEnvelopeLinkEnded = named(
  'EnvelopeLinkEnded',
  'The link can no longer be used: the envelope completed, was declined, canceled or expired, or this recipient already acted.',
  z.object({ error: z.string(), status: z.enum(['completed', 'declined', 'canceled', 'expired', 'acted']) }),
);
export const ENDED_RESPONSE = { description: 'The link has ended', json: ZEnvelopeLinkEnded };

export const ZEnvelopeCodeRequired = named(
  'EnvelopeCodeRequired',
  'This recipient must enter the one-time code emailed to them first (POST /envelope/api/verify-code).',
  z.object({ error: z.string(), codeRequired: z.literal(true) }),
);
export const CODE_REQUIRED_RESPONSE = {
  description: 'The one-time code emailed to the recipient must be entered first',
  json: ZEnvelopeCodeRequired,
};

/** The link's ending as 410, and a code still to enter (the gateway's check or document-store's) as 403. */
export const answeringEnded = async (work: () => Promise<OperationResult>): Promise<OperationResult> => {
  try {
    return await work();
  } catch (err) {
    if (
      err instanceof EnvelopeCodeRequiredError ||
      (err instanceof ServiceError && err.code === 'permission_denied')
    ) {
      return {
        status: 403,
        json: { error: CODE_REQUIRED_MESSAGE, codeRequired: true },
        headers: { 'Cache-Control': 'no-store' },
      };
    }
    if (err instanceof EnvelopeLinkEndedError) {
      return {
        status: 410,
        json: { error: err.message, status: err.ending },
        headers: { 'Cache-Control': 'no-store' },
      };
    }
    throw err;
  }
};

export const ZEnvelopeRecipientView = named(
  'EnvelopeRecipientView',
  'What the envelope signing page shows its recipient: the document, their own fields, and the others by name and progress.',
  z.object({
    envelopeId: ZEnvelopeId,
    envelopeStatus: ZEnvelopeStatus,
    fileName: z.string(),
    subject: z.string(),
    message: z.string().nullable().meta({ description: "The sender's message: text, never HTML" }),
    senderEmail: z.string(),
    pageCount: z.number().int().positive(),
    expiresAt: ZIsoTimestamp,
    recipient: z.object({
      name: z.string(),
      email: z.string(),
      role: ZRecipientRole,
      order: z.number().int(),
      status: ZRecipientStatus,
      fields: z.array(ZEnvelopeField),
    }),
    others: z.array(ZOtherRecipient),
    embedOrigins: z.array(z.string()).optional().meta({
      description:
        "An embedded link's only: the origins allowed to frame the page, the only ones it posts its events to",
    }),
    codeRequired: z.boolean().meta({
      description:
        'The recipient must enter the one-time code emailed to them (POST /envelope/api/verify-code) before the document is shown or anything is done',
    }),
  }),
);

export const openEnvelopePageOperation = defineOperation({
  id: 'openEnvelopePage',
  method: 'get',
  path: '/e/{token}',
  tag: TAG,
  summary: 'The signing page of an envelope link',
  description:
    "The page a recipient of an envelope opens from their email, or an embedded recipient in a frame of the sender's site (a signing URL: then its Content-Security-Policy frame-ancestors lists the account's embed origins instead of 'none'). Opening it changes nothing. An unknown or replaced link answers 404; a link of an envelope that ended, or of a recipient who already acted, or a signing URL already opened once, answers 410; each with a page that says so.",
  auth: 'none',
  dashboard: true,
  request: { params: z.object({ token: z.string().meta({ description: 'The token of the link' }) }) },
  responses: {
    200: { description: 'The signing page', html: true },
    404: { description: 'Not a valid link', html: true },
    410: { description: 'The link has ended', html: true },
  },
  errors: ['unavailable', 'internal'],
  async handle({ params }, deps) {
    const notValid = {
      status: 404,
      html: linkMessagePage('Link not valid', UNKNOWN_ENVELOPE_LINK_MESSAGE),
      headers: LINK_PAGE_HEADERS,
    } as const;
    if (!isSigningToken(params.token)) return notValid;
    const link = await findEnvelopeLink(deps.envelopes, signingTokenHash(params.token)).catch(
      (err: unknown) => {
        if (err instanceof ServiceError && err.code === 'not_found') return undefined;
        throw err;
      },
    );
    if (!link) return notValid;
    // An embedded link's page (and what it says when refused) may be framed by the account's origins.
    const origins = link.embedded ? await deps.envelopes.embedOrigins(link.accountId) : undefined;
    const headers = origins ? framedPageHeaders(origins) : LINK_PAGE_HEADERS;
    const html = loadWebPage('envelope');
    const refused = refusalOf(link);
    if (refused) {
      // Framed, the refusal is the page itself, told why: it tells the sender's site (an `error` event).
      const framed = origins !== undefined && origins.length > 0 && html !== undefined;
      return {
        status: 410,
        html: framed
          ? withEmbedData(html, { origins, refused })
          : linkMessagePage(refused.title, refused.message),
        headers,
      };
    }
    if (html === undefined) {
      throw new ServiceError('unavailable', 'The envelope signing page is not built: run `pnpm build:web`.');
    }
    return { status: 200, html: origins ? withEmbedData(html, { origins }) : html, headers };
  },
});

export const getEnvelopeRecipientOperation = defineOperation({
  id: 'getEnvelopeRecipient',
  method: 'get',
  path: '/envelope/api/recipient',
  tag: TAG,
  summary: 'The envelope and recipient behind a link',
  description:
    'Who asks what of this recipient, with their fields. Changes nothing. 404 for an unknown link, 410 for one that has ended.',
  auth: 'none',
  dashboard: true,
  request: { headers: ZTokenHeaders },
  responses: {
    200: { description: 'The recipient view', json: ZEnvelopeRecipientView },
    410: ENDED_RESPONSE,
  },
  errors: ['not_found', 'unavailable', 'internal'],
  handle: ({ headers }, deps) =>
    answeringEnded(async () => {
      const link = await findActingLink(deps.envelopes, tokenOf(headers).hash);
      const { recipient } = link;
      return {
        status: 200,
        json: {
          envelopeId: link.envelopeId,
          envelopeStatus: link.envelopeStatus,
          fileName: link.fileName,
          subject: link.subject,
          message: link.message,
          senderEmail: link.senderEmail,
          pageCount: link.pageCount,
          expiresAt: link.expiresAt,
          recipient: {
            name: recipient.name,
            email: recipient.email,
            role: recipient.role,
            order: recipient.order,
            status: recipient.status,
            fields: recipient.fields,
          },
          others: link.others,
          codeRequired: link.codeRequired,
          ...(link.embedded
            ? { embedOrigins: [...(await deps.envelopes.embedOrigins(link.accountId))] }
            : {}),
        },
        headers: { 'Cache-Control': 'no-store' },
      };
    }),
});

export const getEnvelopeLinkDocumentOperation = defineOperation({
  id: 'getEnvelopeLinkDocument',
  method: 'get',
  path: '/envelope/api/document',
  tag: TAG,
  summary: 'The PDF to sign, as it stands',
  description:
    'The document with the signatures of the groups before this one, for the page to show. Changes nothing.',
  auth: 'none',
  dashboard: true,
  request: { headers: ZTokenHeaders },
  responses: {
    200: { description: 'The PDF', binary: 'application/pdf' },
    403: CODE_REQUIRED_RESPONSE,
    410: ENDED_RESPONSE,
  },
  errors: ['not_found', 'unavailable', 'internal'],
  handle: ({ headers }, deps) =>
    answeringEnded(async () => {
      const link = await findActingLink(deps.envelopes, tokenOf(headers).hash);
      requireCodeVerified(link);
      const size = (await deps.envelopes.statObject(link.objectKey))?.size;
      if (size === undefined) throw new ServiceError('not_found', 'The document is no longer available.');
      return {
        status: 200,
        stream: await deps.envelopes.openObject(link.objectKey),
        contentType: 'application/pdf',
        size,
        headers: { 'Cache-Control': 'no-store', 'Content-Disposition': 'inline' },
      };
    }),
});

export const recordEnvelopeViewOperation = defineOperation({
  id: 'recordEnvelopeView',
  method: 'post',
  path: '/envelope/api/view',
  tag: TAG,
  summary: 'The document was shown',
  description:
    "The page reports that the recipient's browser has shown the document (the first report sets viewedAt; every one is in the story with IP and user agent).",
  auth: 'none',
  dashboard: true,
  originCheck: 'ifSent',
  request: { headers: ZTokenHeaders },
  responses: {
    200: { description: 'Recorded', json: z.object({ viewedAt: ZIsoTimestamp }) },
    403: CODE_REQUIRED_RESPONSE,
    410: ENDED_RESPONSE,
  },
  errors: ['not_found', 'conflict', 'unavailable', 'internal'],
  handle: ({ headers, client }, deps) =>
    answeringEnded(async () => {
      const tokenHash = tokenOf(headers).hash;
      requireCodeVerified(await findActingLink(deps.envelopes, tokenHash));
      const viewed = await deps.envelopes.recordView({
        tokenHash,
        ipAddress: client.ip,
        userAgent: client.userAgent,
      });
      return { status: 200, json: { viewedAt: viewed.viewedAt } };
    }),
});

export const ZEnvelopePageSign = z.object({
  signature: ZPageSignature({ empty: EMPTY_SIGNATURE, what: 'signature' }),
  initials: ZPageSignature({
    empty: 'Please draw or type your initials first.',
    what: 'initials',
  }).optional(),
  values: z
    .record(z.string().regex(/^\d{1,3}$/), z.union([z.string().max(MAX_TEXT_FIELD_LENGTH), z.boolean()]))
    .default({})
    .meta({
      description: "Values of the recipient's text and checkbox fields, by the field's index in their list",
    }),
});

const ZActed = z.object({
  status: ZRecipientStatus,
  actedAt: ZIsoTimestamp,
  envelopeStatus: ZEnvelopeStatus,
  completing: z
    .boolean()
    .meta({ description: 'true when this was the last act: the envelope is being sealed' }),
});

export const signEnvelopeThroughLinkOperation = defineOperation({
  id: 'signEnvelopeThroughLink',
  method: 'post',
  path: '/envelope/api/sign',
  tag: TAG,
  summary: 'Sign from the envelope page',
  description:
    'Signs as this recipient: their fields are drawn (signature and initials adopted once, dates of today, name and email, the text and checkboxes given) and a digital signature of their own is appended to the document as it stands. A required field left empty answers 400 naming it. Signers of one group may sign at the same time: each waits its turn to append. The link then answers 410.',
  auth: 'none',
  dashboard: true,
  originCheck: 'ifSent',
  request: {
    headers: ZTokenHeaders,
    json: ZEnvelopePageSign,
    example: {
      signature: { mode: 'type', typedName: 'Ada Lovelace', color: '#1e3a8a' },
      values: { '2': 'Lisbon' },
    },
  },
  responses: {
    200: { description: 'Signed', json: ZActed },
    403: CODE_REQUIRED_RESPONSE,
    410: ENDED_RESPONSE,
  },
  errors: ['invalid_argument', 'not_found', 'conflict', 'unavailable', 'internal'],
  handle: ({ headers, body, client }, deps) =>
    answeringEnded(async () => {
      const reply = await signEnvelopeStep(deps.envelopes, {
        tokenHash: tokenOf(headers).hash,
        signature: pageSignature(body.signature, 'signature'),
        initials: body.initials ? pageSignature(body.initials, 'initials') : undefined,
        values: body.values,
        ipAddress: client.ip,
        userAgent: client.userAgent,
        deadline: Date.now() + deps.config.SIGN_TIMEOUT_MS,
      });
      return {
        status: 200,
        json: {
          status: reply.recipientStatus,
          actedAt: reply.actedAt,
          envelopeStatus: reply.envelopeStatus,
          completing: reply.completing,
        },
      };
    }),
});

export const approveEnvelopeThroughLinkOperation = defineOperation({
  id: 'approveEnvelopeThroughLink',
  method: 'post',
  path: '/envelope/api/approve',
  tag: TAG,
  summary: 'Approve from the envelope page',
  description: 'An approver approves the document as it stands. The link then answers 410.',
  auth: 'none',
  dashboard: true,
  originCheck: 'ifSent',
  request: { headers: ZTokenHeaders },
  responses: {
    200: { description: 'Approved', json: ZActed },
    403: CODE_REQUIRED_RESPONSE,
    410: ENDED_RESPONSE,
  },
  errors: ['not_found', 'conflict', 'unavailable', 'internal'],
  handle: ({ headers, client }, deps) =>
    answeringEnded(async () => {
      const reply = await approveEnvelopeStep(deps.envelopes, {
        tokenHash: tokenOf(headers).hash,
        ipAddress: client.ip,
        userAgent: client.userAgent,
      });
      return {
        status: 200,
        json: {
          status: reply.recipientStatus,
          actedAt: reply.actedAt,
          envelopeStatus: reply.envelopeStatus,
          completing: reply.completing,
        },
      };
    }),
});

export const declineEnvelopeThroughLinkOperation = defineOperation({
  id: 'declineEnvelopeThroughLink',
  method: 'post',
  path: '/envelope/api/decline',
  tag: TAG,
  summary: 'Decline from the envelope page',
  description:
    'A signer or approver declines with a reason (required): the envelope ends, every link dies, the sender and those who already acted are told.',
  auth: 'none',
  dashboard: true,
  originCheck: 'ifSent',
  request: {
    headers: ZTokenHeaders,
    json: ZPageDecline,
    example: { reason: 'The start date is wrong: it should be 1 March.' },
  },
  responses: {
    200: { description: 'Declined', json: ZActed },
    403: CODE_REQUIRED_RESPONSE,
    410: ENDED_RESPONSE,
  },
  errors: ['invalid_argument', 'not_found', 'conflict', 'unavailable', 'internal'],
  handle: ({ headers, body, client }, deps) =>
    answeringEnded(async () => {
      const reply = await declineEnvelopeStep(deps.envelopes, {
        tokenHash: tokenOf(headers).hash,
        reason: body.reason,
        ipAddress: client.ip,
        userAgent: client.userAgent,
      });
      return {
        status: 200,
        json: {
          status: reply.recipientStatus,
          actedAt: reply.actedAt,
          envelopeStatus: reply.envelopeStatus,
          completing: reply.completing,
        },
      };
    }),
});
