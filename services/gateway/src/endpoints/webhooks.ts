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
import { defineAccountOperation } from '../api/account-operation';
import { intQueryParam } from '../api/query-params';
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
} from './webhooks.schemas';

const NO_STORE_HEADER = { 'Cache-Control': { description: 'no-store', schema: z.string() } };
const PARAMS = z.object({
  webhookId: z
    .string()
    .max(100)
    .meta({ description: 'The webhook ID', example: 'wh_4Qx9TnV2kLm8RbZc1YdFh7Ws' }),
});

/**
 * Every webhook operation is offered at `/api/v1/webhooks…` with an API key (the public API) and at
 * `/api/webhooks…` with the dashboard session (cookie, Origin and X-CSRF-Token on changes), calling
 * the same `webhook.*` requests for the caller's account.
 */
const mounts = (subpath: string, apiKeyId: string, sessionId: string) => ({
  apiKey: { id: apiKeyId, path: `/api/v1/webhooks${subpath}`, tag: 'Webhooks' },
  session: {
    id: sessionId,
    path: `/api/webhooks${subpath}`,
    tag: 'Dashboard',
    description: (text: string) =>
      `${text} The dashboard's form of the /api/v1/webhooks operation of the same name: the session cookie instead of an API key (changes need an Origin of this site and X-CSRF-Token), open to every plan.`,
  },
});

export const createWebhookOperation = defineAccountOperation({
  mounts: mounts('', 'createWebhook', 'createDashboardWebhook'),
  method: 'post',
  summary: 'Register a webhook endpoint',
  description:
    'Events of the chosen types are POSTed to `url`, signed with the Standard Webhooks scheme (`webhook-id`, `webhook-timestamp`, `webhook-signature`). The answer holds the signing secret (`whsec_…`) this once (`Cache-Control: no-store`). The URL must be http(s), without credentials, and resolve to public addresses only (private, loopback, link-local and metadata addresses are refused: 400 naming `url`). At most 20 endpoints per account.',
  auth: 'account',
  idempotency: 'replay',
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
      accountId: input.caller.accountId,
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

export const listWebhooksOperation = defineAccountOperation({
  mounts: mounts('', 'listWebhooks', 'listDashboardWebhooks'),
  method: 'get',
  summary: "The account's webhook endpoints",
  description:
    'Every endpoint of the account, newest first, with whether it is enabled and why not. Never a secret.',
  auth: 'account',
  request: {},
  responses: { 200: { description: 'The endpoints', json: ZWebhookList } },
  errors: ['unavailable', 'internal'],
  async handle(input, deps) {
    const { endpoints } = await deps.bus.request(WebhookList, {
      accountId: input.caller.accountId,
    });
    return { status: 200, json: { webhooks: endpoints } };
  },
});

export const getWebhookOperation = defineAccountOperation({
  mounts: mounts('/{webhookId}', 'getWebhook', 'getDashboardWebhook'),
  method: 'get',
  summary: 'One webhook endpoint',
  description: "An endpoint of the account; another account's or an unknown ID is 404.",
  auth: 'account',
  request: { params: PARAMS },
  responses: { 200: { description: 'The endpoint', json: ZPublicWebhook } },
  errors: ['not_found', 'unavailable', 'internal'],
  async handle(input, deps) {
    const endpoint = await deps.bus.request(WebhookGet, {
      accountId: input.caller.accountId,
      webhookId: input.params.webhookId,
    });
    return { status: 200, json: endpoint };
  },
});

export const updateWebhookOperation = defineAccountOperation({
  mounts: mounts('/{webhookId}', 'updateWebhook', 'updateDashboardWebhook'),
  method: 'patch',
  summary: 'Change a webhook endpoint',
  description:
    'Change the URL (checked again), the event types or the description, or disable (`enabled: false`) or re-enable (`enabled: true`) the endpoint. An endpoint we disabled (its receiver answered 410, or it failed for 5 days) is re-enabled this way; its pending deliveries then resume.',
  auth: 'account',
  request: { params: PARAMS, json: ZUpdateWebhookRequest, example: { enabled: true } },
  responses: { 200: { description: 'The endpoint as it is now', json: ZPublicWebhook } },
  errors: ['invalid_argument', 'not_found', 'unavailable', 'internal'],
  async handle(input, deps) {
    const endpoint = await deps.bus.request(WebhookUpdate, {
      accountId: input.caller.accountId,
      webhookId: input.params.webhookId,
      ...input.body,
    });
    return { status: 200, json: endpoint };
  },
});

export const deleteWebhookOperation = defineAccountOperation({
  mounts: mounts('/{webhookId}', 'deleteWebhook', 'deleteDashboardWebhook'),
  method: 'delete',
  summary: 'Remove a webhook endpoint',
  description: 'The endpoint and its delivery log are removed; nothing more is sent to it.',
  auth: 'account',
  request: { params: PARAMS },
  responses: { 204: { description: 'Removed' } },
  errors: ['not_found', 'unavailable', 'internal'],
  async handle(input, deps) {
    await deps.bus.request(WebhookDelete, {
      accountId: input.caller.accountId,
      webhookId: input.params.webhookId,
    });
    return { status: 204, empty: true };
  },
});

export const rotateWebhookSecretOperation = defineAccountOperation({
  mounts: mounts('/{webhookId}/rotate-secret', 'rotateWebhookSecret', 'rotateDashboardWebhookSecret'),
  method: 'post',
  summary: "Rotate a webhook endpoint's secret",
  description:
    'A new secret, shown this once. For `overlapHours` (default 24, at most 168) every delivery is signed with both the new and the previous secret (two space-separated `v1,` signatures), so a receiver verifies with either while you deploy the new one; then with the new one only.',
  auth: 'account',
  idempotency: 'replay',
  request: { params: PARAMS, json: ZRotateWebhookSecretRequest, example: { overlapHours: 24 } },
  responses: {
    200: { description: 'The new secret', json: ZRotatedWebhookSecret, headers: NO_STORE_HEADER },
  },
  errors: ['invalid_argument', 'not_found', 'unavailable', 'internal'],
  async handle(input, deps) {
    const rotated = await deps.bus.request(WebhookRotateSecret, {
      accountId: input.caller.accountId,
      webhookId: input.params.webhookId,
      overlapHours: input.body.overlapHours ?? 24,
    });
    return { status: 200, headers: { 'Cache-Control': 'no-store' }, json: rotated };
  },
});

export const listWebhookDeliveriesOperation = defineAccountOperation({
  mounts: mounts('/{webhookId}/deliveries', 'listWebhookDeliveries', 'listDashboardWebhookDeliveries'),
  method: 'get',
  summary: "A webhook endpoint's delivery log",
  description:
    'Deliveries to the endpoint, newest first: the event, whether it succeeded, failed for good or is pending (and when the next attempt is due), and every attempt with its HTTP status, latency, error and the first 1 KiB of the answer.',
  auth: 'account',
  request: {
    params: PARAMS,
    query: z.object({
      limit: intQueryParam('limit', 1, 100)
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
      accountId: input.caller.accountId,
      webhookId: input.params.webhookId,
      limit: input.query.limit,
      before: input.query.before,
    });
    return { status: 200, json: page };
  },
});

export const replayWebhookEventOperation = defineAccountOperation({
  mounts: mounts('/{webhookId}/events/{eventId}/replay', 'replayWebhookEvent', 'replayDashboardWebhookEvent'),
  method: 'post',
  summary: 'Deliver an event again',
  description:
    'Queues a new delivery of an earlier event of the account (its `eventId`, as in the delivery log or the payload) to this endpoint. The payload and the `webhook-id` are the event’s, so a receiver that de-duplicates on the id recognises it. 409 when the endpoint is disabled.',
  auth: 'account',
  idempotency: 'replay',
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
      accountId: input.caller.accountId,
      webhookId: input.params.webhookId,
      eventId: input.params.eventId,
    });
    return { status: 202, json: delivery };
  },
});

export const sendTestWebhookOperation = defineAccountOperation({
  mounts: mounts('/{webhookId}/test', 'sendTestWebhook', 'sendTestDashboardWebhook'),
  method: 'post',
  summary: 'Send a test event',
  description:
    'Queues a `webhook.test` event to the endpoint, signed like every other, to check that your receiver gets and verifies it; the delivery log shows the outcome. 409 when the endpoint is disabled.',
  auth: 'account',
  idempotency: 'replay',
  request: { params: PARAMS },
  responses: { 202: { description: 'Queued', json: ZPublicWebhookDelivery } },
  errors: ['not_found', 'conflict', 'unavailable', 'internal'],
  async handle(input, deps) {
    const delivery = await deps.bus.request(WebhookSendTest, {
      accountId: input.caller.accountId,
      webhookId: input.params.webhookId,
    });
    return { status: 202, json: delivery };
  },
});
