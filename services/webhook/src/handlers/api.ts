import { randomUUID } from 'node:crypto';
import type { BlockList } from 'node:net';
import { endpoint, type Endpoint } from '@esign/bus';
import {
  MAX_WEBHOOKS_PER_ACCOUNT,
  ServiceError,
  WebhookCreate,
  WebhookDeliveries,
  WebhookDelete,
  WebhookGet,
  WebhookList,
  WebhookReplay,
  WebhookRotateSecret,
  WebhookSendTest,
  WebhookUpdate,
  type TWebhookDelivery,
  type TWebhookEndpoint,
} from '@esign/contracts';
import { randomBase62 } from '@esign/ids';
import type { AttemptRow, DeliveryRow, EndpointRow, WebhookStore } from '../db/store';
import { publicEventId } from '../domain/events';
import type { SecretBox } from '../domain/secret-box';
import { newWebhookSecret } from '../domain/signature';
import { checkTarget, TargetRefusedError, TargetUnresolvedError, type Lookup } from '../domain/ssrf';

/** `wh_` + 24 base62 characters (about 143 bits). */
const newWebhookId = () => `wh_${randomBase62(24)}`;

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const endpointView = (row: EndpointRow, now: Date): TWebhookEndpoint => ({
  id: row.id,
  url: row.url,
  description: row.description,
  eventTypes: row.eventTypes as TWebhookEndpoint['eventTypes'],
  enabled: row.enabled,
  disabledReason: row.disabledReason as TWebhookEndpoint['disabledReason'],
  disabledAt: iso(row.disabledAt),
  failingSince: iso(row.failingSince),
  previousSecretExpiresAt:
    row.previousSecretExpiresAt && row.previousSecretExpiresAt > now
      ? row.previousSecretExpiresAt.toISOString()
      : null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const deliveryView = (
  row: DeliveryRow & { eventType: string; attemptLog: AttemptRow[] },
): TWebhookDelivery => ({
  id: row.id,
  eventId: row.eventId,
  eventType: row.eventType,
  kind: row.kind as TWebhookDelivery['kind'],
  status: row.status,
  attempts: row.attemptLog.length,
  nextAttemptAt: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
  createdAt: row.createdAt.toISOString(),
  attemptLog: row.attemptLog.map((a) => ({
    attemptedAt: a.attemptedAt.toISOString(),
    statusCode: a.statusCode,
    latencyMs: a.latencyMs,
    succeeded: a.succeeded,
    error: a.error,
    responseExcerpt: a.responseExcerpt,
  })),
});

/** The webhook service's subjects for the gateway's `/api/v1/webhooks` operations. */
export const webhookApiHandlers = (deps: {
  store: WebhookStore;
  secrets: SecretBox;
  allow: BlockList;
  lookup?: Lookup;
  /** A delivery was queued: attempt it soon. */
  onQueued: () => void;
  now: () => Date;
}): Endpoint[] => {
  const { store, secrets, now } = deps;
  // A name that does not resolve yet is accepted (its deliveries fail until it does, and are checked
  // then); one that resolves to a refused address is not.
  const checkUrl = async (url: string) => {
    try {
      await checkTarget(url, deps.allow, deps.lookup);
    } catch (err) {
      if (err instanceof TargetUnresolvedError) return;
      if (err instanceof TargetRefusedError) throw new ServiceError('invalid_argument', err.message, 'url');
      throw err;
    }
  };
  const owned = async (accountId: string, webhookId: string) => {
    const row = await store.getEndpoint(accountId, webhookId);
    if (!row) throw new ServiceError('not_found', `No webhook ${webhookId.slice(0, 40)}`);
    return row;
  };
  const usable = (row: EndpointRow) => {
    if (!row.enabled) {
      throw new ServiceError(
        'conflict',
        `webhook ${row.id} is disabled (${row.disabledReason ?? 'manual'}); enable it first`,
      );
    }
  };
  const queued = (delivery: DeliveryRow, eventType: string) => {
    deps.onQueued();
    return deliveryView({ ...delivery, eventType, attemptLog: [] });
  };

  return [
    endpoint(WebhookCreate, async (request) => {
      await checkUrl(request.url);
      if ((await store.countEndpoints(request.accountId)) >= MAX_WEBHOOKS_PER_ACCOUNT) {
        throw new ServiceError('conflict', `at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks per account`);
      }
      const id = newWebhookId();
      const secret = newWebhookSecret();
      const row = await store.insertEndpoint({
        id,
        accountId: request.accountId,
        url: request.url,
        description: request.description,
        eventTypes: [...new Set(request.eventTypes)],
        secret: secrets.seal(secret, id),
      });
      return { endpoint: endpointView(row, now()), secret };
    }),
    endpoint(WebhookList, async (request) => ({
      endpoints: (await store.listEndpoints(request.accountId)).map((row) => endpointView(row, now())),
    })),
    endpoint(WebhookGet, async (request) =>
      endpointView(await owned(request.accountId, request.webhookId), now()),
    ),
    endpoint(WebhookUpdate, async (request) => {
      const before = await owned(request.accountId, request.webhookId);
      if (request.url !== undefined) await checkUrl(request.url);
      const row = await store.updateEndpoint(request.accountId, request.webhookId, {
        ...(request.url !== undefined ? { url: request.url } : {}),
        ...(request.eventTypes !== undefined ? { eventTypes: [...new Set(request.eventTypes)] } : {}),
        ...(request.description !== undefined ? { description: request.description } : {}),
        ...(request.enabled === true
          ? { enabled: true, disabledReason: null, disabledAt: null, failingSince: null }
          : request.enabled === false && before.enabled
            ? { enabled: false, disabledReason: 'manual', disabledAt: now() }
            : {}),
      });
      if (!row) throw new ServiceError('not_found', `No webhook ${request.webhookId.slice(0, 40)}`);
      if (request.enabled === true && !before.enabled) {
        await store.resumeDeliveries(row.id);
        deps.onQueued();
      }
      return endpointView(row, now());
    }),
    endpoint(WebhookDelete, async (request) => {
      if (!(await store.deleteEndpoint(request.accountId, request.webhookId))) {
        throw new ServiceError('not_found', `No webhook ${request.webhookId.slice(0, 40)}`);
      }
      return { id: request.webhookId };
    }),
    endpoint(WebhookRotateSecret, async (request) => {
      const row = await owned(request.accountId, request.webhookId);
      const secret = newWebhookSecret();
      const expiresAt =
        request.overlapHours > 0 ? new Date(now().getTime() + request.overlapHours * 3600_000) : null;
      await store.updateEndpoint(request.accountId, row.id, {
        secret: secrets.seal(secret, row.id),
        // The current secret becomes the previous one (a rotation during an overlap ends the older overlap).
        previousSecret: expiresAt ? row.secret : null,
        previousSecretExpiresAt: expiresAt,
      });
      return { secret, previousSecretExpiresAt: iso(expiresAt) };
    }),
    endpoint(WebhookDeliveries, async (request) => {
      const row = await owned(request.accountId, request.webhookId);
      const page = await store.listDeliveries(row.id, request.limit, request.before);
      return {
        deliveries: page.rows.map(deliveryView),
        nextCursor: page.more ? (page.rows.at(-1)?.id ?? null) : null,
      };
    }),
    endpoint(WebhookReplay, async (request) => {
      const row = await owned(request.accountId, request.webhookId);
      const event = await store.getEvent(request.accountId, request.eventId);
      if (!event) throw new ServiceError('not_found', `No event ${request.eventId.slice(0, 40)}`, 'eventId');
      usable(row);
      return queued(await store.queueDelivery(event.id, row.id, 'replay'), event.type);
    }),
    endpoint(WebhookSendTest, async (request) => {
      const row = await owned(request.accountId, request.webhookId);
      usable(row);
      const id = publicEventId(randomUUID());
      await store.insertEvent({
        id,
        accountId: request.accountId,
        type: 'webhook.test',
        occurredAt: now(),
        objectKey: null,
        data: {
          message: 'A test event from esign: your endpoint receives and verifies webhooks.',
          webhookId: row.id,
        },
      });
      return queued(await store.queueDelivery(id, row.id, 'test'), 'webhook.test');
    }),
  ];
};
