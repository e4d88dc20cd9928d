import {
  WebhookCreate,
  WebhookDeliveries,
  WebhookDelete,
  WebhookGet,
  WebhookList,
  WebhookReplay,
  WebhookRotateSecret,
  WebhookSendTest,
  WebhookUpdate,
} from '@esign/contracts';
import { z } from 'zod';
import { defineOperation } from '../api/operation';
import {
  ZCreateWebhookRequest,
  ZNewWebhook,
  ZPublicWebhook,
  ZPublicWebhookDelivery,
  ZRotatedWebhookSecret,
  ZRotateWebhookSecretRequest,
  ZUpdateWebhookRequest,
  ZWebhookDeliveryList,
  ZWebhookList,
} from '../api/webhook-schemas';

const NO_STORE_HEADER = { 'Cache-Control': { description: 'no-store', schema: z.string() } };
const PARAMS = z.object({
  webhookId: z
    .string()
    .max(100)
    .meta({ description: 'The webhook ID', example: 'wh_4Qx9TnV2kLm8RbZc1YdFh7Ws' }),
});

/**
 * Where the webhook operations are offered: `/api/v1/webhooks` with an API key (the public API) and
 * `/api/webhooks` with the dashboard session (cookie, Origin and X-CSRF-Token on changes). Both are
 * made by `webhookOperations` below from one set of declarations and handlers, calling the same
 * `webhook.*` requests: only the path, the authentication, the operation IDs and how the account is
 * found differ.
 */
export interface WebhookSurface {
  readonly path: string;
  readonly auth: 'apiKey' | 'session';
  readonly tag: string;
  readonly id: (base: string) => string;
  readonly describe: (text: string) => string;
  readonly accountOf: (input: {
    readonly principal: { readonly accountId: string } | undefined;
    readonly session: { readonly accountId: string } | undefined;
  }) => string;
}

export const API_WEBHOOKS: WebhookSurface = {
  path: '/api/v1/webhooks',
  auth: 'apiKey',
  tag: 'Webhooks',
  id: (base) => base,
  describe: (text) => text,
  accountOf: ({ principal }) => {
    if (!principal) throw new Error('a /api/v1 webhook operation needs a principal');
    return principal.accountId;
  },
};

export const DASHBOARD_WEBHOOKS: WebhookSurface = {
  path: '/api/webhooks',
  auth: 'session',
  tag: 'Dashboard',
  id: (base) => base.replace('Webhook', 'DashboardWebhook'),
  describe: (text) =>
    `${text} The dashboard's form of the /api/v1/webhooks operation of the same name: the session cookie instead of an API key (changes need an Origin of this site and X-CSRF-Token), open to every plan.`,
  accountOf: ({ session }) => {
    if (!session) throw new Error('a dashboard webhook operation needs a session');
    return session.accountId;
  },
};

/** The nine webhook operations of one surface. */
export const webhookOperations = (surface: WebhookSurface) => {
  const create = defineOperation({
    id: surface.id('createWebhook'),
    method: 'post',
    path: surface.path,
    tag: surface.tag,
    summary: 'Register a webhook endpoint',
    description: surface.describe(
      'Events of the chosen types are POSTed to `url`, signed with the Standard Webhooks scheme (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The answer holds the signing secret (`whsec_…`) this once (`Cache-Control: no-store`). The URL must be http(s), without credentials, and resolve to public addresses only (private, loopback, link-local and metadata addresses are refused: 400 naming `url`). At most 20 endpoints per account.',
    ),
    auth: surface.auth,
    request: {
      json: ZCreateWebhookRequest,
      example: { url: 'https://example.com/esign/webhooks', eventTypes: ['document.signed'] },
    },
    responses: {
      201: {
        description: 'The endpoint and its secret, shown once',
        json: ZNewWebhook,
        headers: {
          ...NO_STORE_HEADER,
          'X-Webhook-Id': { description: "The new endpoint's ID (as webhook.id)", schema: z.string() },
        },
      },
    },
    errors: ['invalid_argument', 'conflict', 'unavailable', 'internal'],
    async handle(input, deps) {
      const created = await deps.bus.request(WebhookCreate, {
        accountId: surface.accountOf(input),
        url: input.body.url,
        eventTypes: input.body.eventTypes,
        description: input.body.description ?? '',
      });
      return {
        status: 201,
        headers: { 'Cache-Control': 'no-store', 'X-Webhook-Id': created.endpoint.id },
        json: { webhook: created.endpoint, secret: created.secret },
      };
    },
  });

  const list = defineOperation({
    id: surface.id('listWebhooks'),
    method: 'get',
    path: surface.path,
    tag: surface.tag,
    summary: "The account's webhook endpoints",
    description: surface.describe(
      'Every endpoint of the account, newest first, with whether it is enabled and why not. Never a secret.',
    ),
    auth: surface.auth,
    request: {},
    responses: { 200: { description: 'The endpoints', json: ZWebhookList } },
    errors: ['unavailable', 'internal'],
    async handle(input, deps) {
      const { endpoints } = await deps.bus.request(WebhookList, {
        accountId: surface.accountOf(input),
      });
      return { status: 200, json: { webhooks: endpoints } };
    },
  });

  const get = defineOperation({
    id: surface.id('getWebhook'),
    method: 'get',
    path: `${surface.path}/{webhookId}`,
    tag: surface.tag,
    summary: 'One webhook endpoint',
    description: surface.describe("An endpoint of the account; another account's or an unknown ID is 404."),
    auth: surface.auth,
    request: { params: PARAMS },
    responses: { 200: { description: 'The endpoint', json: ZPublicWebhook } },
    errors: ['not_found', 'unavailable', 'internal'],
    async handle(input, deps) {
      const endpoint = await deps.bus.request(WebhookGet, {
        accountId: surface.accountOf(input),
        webhookId: input.params.webhookId,
      });
      return { status: 200, json: endpoint };
    },
  });

  const update = defineOperation({
    id: surface.id('updateWebhook'),
    method: 'patch',
    path: `${surface.path}/{webhookId}`,
    tag: surface.tag,
    summary: 'Change a webhook endpoint',
    description: surface.describe(
      'Change the URL (checked again), the event types or the description, or disable (`enabled: false`) or re-enable (`enabled: true`) the endpoint. An endpoint we disabled (its receiver answered 410, or it failed for 5 days) is re-enabled this way; its pending deliveries then resume.',
    ),
    auth: surface.auth,
    request: { params: PARAMS, json: ZUpdateWebhookRequest, example: { enabled: true } },
    responses: { 200: { description: 'The endpoint as it is now', json: ZPublicWebhook } },
    errors: ['invalid_argument', 'not_found', 'unavailable', 'internal'],
    async handle(input, deps) {
      const endpoint = await deps.bus.request(WebhookUpdate, {
        accountId: surface.accountOf(input),
        webhookId: input.params.webhookId,
        ...input.body,
      });
      return { status: 200, json: endpoint };
    },
  });

  const remove = defineOperation({
    id: surface.id('deleteWebhook'),
    method: 'delete',
    path: `${surface.path}/{webhookId}`,
    tag: surface.tag,
    summary: 'Remove a webhook endpoint',
    description: surface.describe(
      'The endpoint and its delivery log are removed; nothing more is sent to it.',
    ),
    auth: surface.auth,
    request: { params: PARAMS },
    responses: { 204: { description: 'Removed' } },
    errors: ['not_found', 'unavailable', 'internal'],
    async handle(input, deps) {
      await deps.bus.request(WebhookDelete, {
        accountId: surface.accountOf(input),
        webhookId: input.params.webhookId,
      });
      return { status: 204, empty: true };
    },
  });

  const rotateSecret = defineOperation({
    id: surface.id('rotateWebhookSecret'),
    method: 'post',
    path: `${surface.path}/{webhookId}/rotate-secret`,
    tag: surface.tag,
    summary: "Rotate a webhook endpoint's secret",
    description: surface.describe(
      'A new secret, shown this once. For `overlapHours` (default 24, at most 168) every delivery is signed with both the new and the previous secret (two space-separated `v1,` signatures), so a receiver verifies with either while you deploy the new one; then with the new one only.',
    ),
    auth: surface.auth,
    request: { params: PARAMS, json: ZRotateWebhookSecretRequest, example: { overlapHours: 24 } },
    responses: {
      200: { description: 'The new secret', json: ZRotatedWebhookSecret, headers: NO_STORE_HEADER },
    },
    errors: ['invalid_argument', 'not_found', 'unavailable', 'internal'],
    async handle(input, deps) {
      const rotated = await deps.bus.request(WebhookRotateSecret, {
        accountId: surface.accountOf(input),
        webhookId: input.params.webhookId,
        overlapHours: input.body.overlapHours ?? 24,
      });
      return { status: 200, headers: { 'Cache-Control': 'no-store' }, json: rotated };
    },
  });

  const deliveries = defineOperation({
    id: surface.id('listWebhookDeliveries'),
    method: 'get',
    path: `${surface.path}/{webhookId}/deliveries`,
    tag: surface.tag,
    summary: "A webhook endpoint's delivery log",
    description: surface.describe(
      'Deliveries to the endpoint, newest first: the event, whether it succeeded, failed for good or is pending (and when the next attempt is due), and every attempt with its HTTP status, latency, error and the first 1 KiB of the answer.',
    ),
    auth: surface.auth,
    request: {
      params: PARAMS,
      query: z.object({
        limit: z
          .preprocess(
            (v) => (typeof v === 'string' ? Number(v) : v),
            z
              .number({ error: 'limit must be an integer from 1 to 100' })
              .int('limit must be an integer from 1 to 100')
              .min(1, 'limit must be an integer from 1 to 100')
              .max(100, 'limit must be an integer from 1 to 100'),
          )
          .default(20)
          .meta({ description: 'Deliveries per page, at most 100' }),
        before: z.uuid('before must be a delivery id (a nextCursor)').optional().meta({
          description: 'The nextCursor of the previous page',
        }),
      }),
    },
    responses: { 200: { description: 'A page of deliveries', json: ZWebhookDeliveryList } },
    errors: ['invalid_argument', 'not_found', 'unavailable', 'internal'],
    async handle(input, deps) {
      const page = await deps.bus.request(WebhookDeliveries, {
        accountId: surface.accountOf(input),
        webhookId: input.params.webhookId,
        limit: input.query.limit,
        before: input.query.before,
      });
      return { status: 200, json: page };
    },
  });

  const replay = defineOperation({
    id: surface.id('replayWebhookEvent'),
    method: 'post',
    path: `${surface.path}/{webhookId}/events/{eventId}/replay`,
    tag: surface.tag,
    summary: 'Deliver an event again',
    description: surface.describe(
      'Queues a new delivery of an earlier event of the account (its `eventId`, as in the delivery log or the payload) to this endpoint. The payload and the `webhook-id` are the event’s, so a receiver that de-duplicates on the id recognises it. 409 when the endpoint is disabled.',
    ),
    auth: surface.auth,
    request: {
      params: PARAMS.extend({
        eventId: z.string().max(100).meta({
          description: 'The event ID (`evt_…`: the payload’s id and webhook-id)',
          example: 'evt_0d7f3c1e9a2b4c5d8e6f7a8b9c0d1e2f',
        }),
      }),
    },
    responses: { 202: { description: 'Queued', json: ZPublicWebhookDelivery } },
    errors: ['not_found', 'conflict', 'unavailable', 'internal'],
    async handle(input, deps) {
      const delivery = await deps.bus.request(WebhookReplay, {
        accountId: surface.accountOf(input),
        webhookId: input.params.webhookId,
        eventId: input.params.eventId,
      });
      return { status: 202, json: delivery };
    },
  });

  const sendTest = defineOperation({
    id: surface.id('sendTestWebhook'),
    method: 'post',
    path: `${surface.path}/{webhookId}/test`,
    tag: surface.tag,
    summary: 'Send a test event',
    description: surface.describe(
      'Queues a `webhook.test` event to the endpoint, signed like every other, to check that your receiver gets and verifies it; the delivery log shows the outcome. 409 when the endpoint is disabled.',
    ),
    auth: surface.auth,
    request: { params: PARAMS },
    responses: { 202: { description: 'Queued', json: ZPublicWebhookDelivery } },
    errors: ['not_found', 'conflict', 'unavailable', 'internal'],
    async handle(input, deps) {
      const delivery = await deps.bus.request(WebhookSendTest, {
        accountId: surface.accountOf(input),
        webhookId: input.params.webhookId,
      });
      return { status: 202, json: delivery };
    },
  });

  return { create, list, get, update, remove, rotateSecret, deliveries, sendTest, replay };
};

const api = webhookOperations(API_WEBHOOKS);
export const createWebhookOperation = api.create;
export const listWebhooksOperation = api.list;
export const getWebhookOperation = api.get;
export const updateWebhookOperation = api.update;
export const deleteWebhookOperation = api.remove;
export const rotateWebhookSecretOperation = api.rotateSecret;
export const listWebhookDeliveriesOperation = api.deliveries;
export const sendTestWebhookOperation = api.sendTest;
export const replayWebhookEventOperation = api.replay;

const dashboard = webhookOperations(DASHBOARD_WEBHOOKS);
export const createDashboardWebhookOperation = dashboard.create;
export const listDashboardWebhooksOperation = dashboard.list;
export const getDashboardWebhookOperation = dashboard.get;
export const updateDashboardWebhookOperation = dashboard.update;
export const deleteDashboardWebhookOperation = dashboard.remove;
export const rotateDashboardWebhookSecretOperation = dashboard.rotateSecret;
export const listDashboardWebhookDeliveriesOperation = dashboard.deliveries;
export const sendTestDashboardWebhookOperation = dashboard.sendTest;
export const replayDashboardWebhookEventOperation = dashboard.replay;
