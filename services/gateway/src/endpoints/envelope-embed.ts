import {
  MAX_EMBED_ORIGIN_LENGTH,
  MAX_EMBED_ORIGINS,
  ServiceError,
  ZEmbedOrigin,
  ZIsoTimestamp,
  ZRecipientId,
} from '@esign/contracts';
import { z } from 'zod';
import { defineAccountOperation } from '../api/account-operation';
import { named } from '../api/named';
import { defineOperation } from '../api/operation';
import { createSigningUrl } from '../operations/create-signing-url';
import { isEnvelopeId } from './envelopes.schemas';

/**
 * Embedded signing: the origins an account allows to frame its signing pages (an operation of the
 * account, for API keys and the dashboard), and the single-use signing URL of an embedded recipient.
 * The page itself (`/e/<token>`, framed) is envelope-page.ts's, with its frame-ancestors from here.
 */

export const ZEmbedOriginList = named(
  'EmbedOrigins',
  "The origins allowed to frame the account's embedded signing pages (empty: embedded signing is off).",
  z.object({
    origins: z.array(z.string()).meta({
      description: `At most ${MAX_EMBED_ORIGINS} exact origins (https://host[:port]; http only for localhost), as browsers name them`,
      example: ['https://app.example.com'],
    }),
  }),
);

const ZSetEmbedOrigins = z.object({
  origins: z
    .array(z.string().max(MAX_EMBED_ORIGIN_LENGTH))
    .max(MAX_EMBED_ORIGINS, `origins: at most ${MAX_EMBED_ORIGINS} origins`)
    .meta({
      description: `The whole list (it replaces the earlier one): at most ${MAX_EMBED_ORIGINS} exact origins, https://host[:port] (http only for localhost, 127.x.x.x and [::1]), without a path`,
    }),
});

/** Each origin checked and written as browsers name it (lower case, default port dropped), each once. */
const normalisedOrigins = (given: readonly string[]): string[] => [
  ...new Set(
    given.map((origin, i) => {
      const parsed = ZEmbedOrigin.safeParse(origin);
      if (!parsed.success) {
        const message = parsed.error.issues[0]?.message ?? 'not an origin';
        throw new ServiceError('invalid_argument', `origins[${i}]: ${message}`, `origins[${i}]`);
      }
      return parsed.data;
    }),
  ),
];

const mounts = (apiKeyId: string, sessionId: string) => ({
  apiKey: { id: apiKeyId, path: '/api/v1/account/embed-origins', tag: 'Embedded signing' },
  session: {
    id: sessionId,
    path: '/api/account/embed-origins',
    tag: 'Dashboard',
    description: (text: string) =>
      `${text} The dashboard's form of the /api/v1/account/embed-origins operation: the session cookie instead of an API key (changes need an Origin of this site and X-CSRF-Token).`,
    noStore: true as const,
  },
});

export const getEmbedOriginsOperation = defineAccountOperation({
  mounts: mounts('getEmbedOrigins', 'getDashboardEmbedOrigins'),
  method: 'get',
  summary: 'The origins allowed to frame signing pages',
  description:
    "The sites allowed to show the account's embedded signing pages in an iframe (the page's Content-Security-Policy frame-ancestors, and the only origins it posts its events to). Empty until set: signing URLs are refused (409) until then.",
  auth: 'account',
  request: {},
  responses: { 200: { description: 'The origins', json: ZEmbedOriginList } },
  errors: ['unavailable', 'internal'],
  async handle({ caller }, deps) {
    const origins = await deps.envelopes.embedOrigins(caller.accountId, { fresh: true });
    return { status: 200, json: { origins: [...origins] } };
  },
});

export const setEmbedOriginsOperation = defineAccountOperation({
  mounts: mounts('setEmbedOrigins', 'setDashboardEmbedOrigins'),
  method: 'put',
  summary: 'Set the origins allowed to frame signing pages',
  description:
    "Replace the list of sites allowed to show the account's embedded signing pages in an iframe: exact origins (`https://app.example.com`, `https://app.example.com:8443`; `http://` only for localhost), at most 10; an empty list turns embedding off. A 400 names the first origin at fault. Pages already open keep the list they loaded with.",
  auth: 'account',
  request: { json: ZSetEmbedOrigins, example: { origins: ['https://app.example.com'] } },
  responses: { 200: { description: 'The origins as stored', json: ZEmbedOriginList } },
  errors: ['invalid_argument', 'unavailable', 'internal'],
  async handle({ caller, body }, deps) {
    // Through the envelope ports: this gateway's pages use the new list at once.
    const origins = await deps.envelopes.setEmbedOrigins(caller.accountId, normalisedOrigins(body.origins));
    return { status: 200, json: { origins: [...origins] } };
  },
});

export const ZSigningUrl = named(
  'SigningUrl',
  'A single-use URL of the signing page of an embedded recipient, to show in an iframe of a registered origin.',
  z.object({
    url: z.string().meta({
      description:
        'The page to frame (`<esign-signing url="…">`). It opens once: the first load that shows the document uses it up.',
      example: 'https://esign.example.com/e/3q2-7wQx…',
    }),
    expiresAt: ZIsoTimestamp.meta({
      description: 'Open it before then (5 minutes); once open, the page works until the signer is done',
    }),
  }),
);

export const createSigningUrlOperation = defineOperation({
  id: 'createSigningUrl',
  method: 'post',
  collection: false,
  path: '/api/v1/envelopes/{envelopeId}/recipients/{recipientId}/signing-url',
  tag: 'Envelopes',
  summary: 'A signing URL for an embedded recipient',
  description:
    "For a recipient created with `embedded: true` (who gets no email), once their group's turn has come and while they have not acted: a URL of their signing page to show in an iframe on your site (one of the account's embed origins). It works once and must be opened within 5 minutes; ask for a new one for every page view (the new one replaces the earlier ones). The page tells its parent what happens with postMessage (`loaded`, `viewed`, `signed`, `approved`, `declined`, `error`). 409 when the recipient is not embedded, their turn has not come, they acted, the envelope ended, or the account registered no embed origin; 404 for an unknown envelope or recipient or another account's.",
  auth: 'apiKey',
  idempotency: 'replay',
  request: {
    params: z.object({
      envelopeId: z
        .string()
        .max(100)
        .meta({ description: 'The envelope ID (env_…)', example: 'env_4f7Qm2XkT9bLw8RzNc3Ya6Ud' }),
      recipientId: z
        .string()
        .max(100)
        .meta({ description: 'The recipient ID (rcp_…)', example: 'rcp_8Hk2LmQ9xZc4Vb7Nn1Tr5Ya3' }),
    }),
  },
  responses: {
    201: {
      description: 'The signing URL',
      json: ZSigningUrl,
      headers: { 'Cache-Control': { description: 'no-store', schema: z.string() } },
    },
  },
  errors: ['not_found', 'conflict', 'unavailable', 'internal'],
  async handle({ params, caller, origin }, deps) {
    const { envelopeId, recipientId } = params;
    if (!isEnvelopeId(envelopeId))
      throw new ServiceError('not_found', `No envelope ${envelopeId.slice(0, 40)}`);
    if (!ZRecipientId.safeParse(recipientId).success) {
      throw new ServiceError('not_found', `No recipient ${recipientId.slice(0, 40)} on this envelope`);
    }
    const signingUrl = await createSigningUrl(deps.envelopes, {
      accountId: caller.accountId,
      envelopeId,
      recipientId,
      // As the mailer names the gateway in its links; without PUBLIC_BASE_URL, as this request reached it.
      publicBaseUrl: deps.config.PUBLIC_BASE_URL ?? origin,
    });
    deps.logger.info('signing url issued', { envelopeId, recipientId });
    return { status: 201, json: signingUrl, headers: { 'Cache-Control': 'no-store' } };
  },
});
