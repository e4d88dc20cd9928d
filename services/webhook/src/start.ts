import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { blobOptionsFrom, createPresigner } from '@esign/blob';
import { busOptionsFrom, connectBus, type Bus, type ConsumeOptions } from '@esign/bus';
import {
  DocumentSigned,
  SigningCompleted,
  SigningDeclined,
  SigningExpired,
  SigningViewed,
  WebhookEndpointDisabled,
} from '@esign/contracts';
import { createDatabase, databaseUnavailable, migrateSchema } from '@esign/db';
import { createLogger, startHealthServer, untraced, type Logger } from '@esign/telemetry';
import { DEVELOPMENT_SECRET_KEY, type TWebhookConfig } from './config';
import { startDeliveryLoop, type DeliveryLoop } from './delivery-loop';
import { schema } from './db/schema';
import { createWebhookStore, type NewEvent } from './db/store';
import { documentSignedEvent, signingEvent } from './domain/events';
import { createSecretBox } from './domain/secret-box';
import type { Lookup } from './domain/ssrf';
import { webhookApiHandlers } from './handlers/api';

/** A running webhook service. */
export interface WebhookService {
  readonly healthPort: number;
  stop(): Promise<void>;
}

const MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle', import.meta.url));

/**
 * Migrate the `webhook` schema; consume `events.document.signed` and the signing events with durable
 * consumers (`webhook-<event>`), turning each into an event row and one delivery per subscribed
 * endpoint; run the delivery loop; serve the `webhook.*` subjects the gateway's API calls.
 */
export const startWebhookService = async (
  config: TWebhookConfig,
  options: { logger?: Logger; now?: () => Date; lookup?: Lookup } = {},
): Promise<WebhookService> => {
  const logger = options.logger ?? createLogger({ service: 'webhook', level: config.LOG_LEVEL });
  const now = options.now ?? (() => new Date());
  if (config.WEBHOOK_SECRET_KEY === undefined) {
    logger.warn('WEBHOOK_SECRET_KEY is unset: endpoint secrets are sealed with the public development key');
  }
  const secrets = createSecretBox(config.WEBHOOK_SECRET_KEY ?? DEVELOPMENT_SECRET_KEY);
  const database = createDatabase({
    url: config.DATABASE_URL,
    schema,
    max: config.DB_POOL_MAX,
    applicationName: 'webhook',
    onIdleError: (err) => logger.warn('idle database connection lost', { err }),
  });
  let bus: Bus | undefined;
  let loop: DeliveryLoop | undefined;
  try {
    await migrateSchema({ pool: database.pool, schema: 'webhook', migrationsFolder: MIGRATIONS_FOLDER });
    bus = await connectBus({ ...busOptionsFrom(config), name: 'webhook', logger });
    const connected = bus;
    const store = createWebhookStore(database.db);
    const blobOptions = blobOptionsFrom(config);
    const presign = createPresigner({
      ...blobOptions,
      endpoint: config.S3_PUBLIC_ENDPOINT ?? blobOptions.endpoint,
    });
    const ttl = config.WEBHOOK_DOWNLOAD_URL_TTL_SECONDS;
    const allow = config.WEBHOOK_ALLOW_NETWORKS.list;
    const deliveryLoop = startDeliveryLoop({
      store,
      concurrency: config.WEBHOOK_CONCURRENCY,
      intervalMs: config.WEBHOOK_POLL_INTERVAL_MS,
      // Longer than an attempt can take: an attempt still running is never taken twice.
      leaseMs: config.WEBHOOK_TIMEOUT_MS + 30_000,
      logger,
      attempt: {
        store,
        secrets,
        allow,
        lookup: options.lookup,
        timeoutMs: config.WEBHOOK_TIMEOUT_MS,
        maxResponseBytes: config.WEBHOOK_RESPONSE_MAX_BYTES,
        retrySchedule: config.WEBHOOK_RETRY_SCHEDULE_MS,
        disableAfterMs: config.WEBHOOK_DISABLE_AFTER_MS,
        // Presigning is local computation (SigV4), no request to storage.
        downloadUrl: (objectKey) => {
          const at = now();
          return Promise.resolve({
            url: presign(
              'GET',
              blobOptions.bucket,
              objectKey,
              ttl,
              { 'response-content-type': 'application/pdf' },
              at,
            ),
            expiresAt: new Date(at.getTime() + ttl * 1000).toISOString(),
          });
        },
        async onDisabled(endpoint) {
          // Recorded on the endpoint (GET shows disabledReason), logged, and announced for whoever
          // tells the account (the mailer can subscribe to it).
          logger.warn('webhook endpoint disabled', {
            webhookId: endpoint.id,
            accountId: endpoint.accountId,
            reason: endpoint.disabledReason,
          });
          // Durable: the mailer emails the account's owner (once per eventId, the message id too).
          const eventId = randomUUID();
          await connected.publish(
            WebhookEndpointDisabled,
            {
              eventId,
              accountId: endpoint.accountId,
              webhookId: endpoint.id,
              url: endpoint.url,
              reason: endpoint.disabledReason === 'gone' ? 'gone' : 'failing',
              failingSince: endpoint.failingSince?.toISOString() ?? null,
              disabledAt: (endpoint.disabledAt ?? now()).toISOString(),
            },
            { msgId: eventId },
          );
        },
        logger,
        now,
      },
    });
    loop = deliveryLoop;

    const record = async (event: NewEvent) => {
      if ((await store.recordEvent(event)) > 0) deliveryLoop.notify();
    };
    const consume = (durable: string): ConsumeOptions => ({ durable, concurrency: 4, maxDeliveries: 20 });
    await connected.consume(
      DocumentSigned,
      (payload, ctx) => record(documentSignedEvent(payload, ctx.msgId)),
      consume('webhook-document-signed'),
    );
    await connected.consume(
      SigningViewed,
      (payload) => record(signingEvent({ type: 'signing.viewed', ...payload })),
      consume('webhook-signing-viewed'),
    );
    await connected.consume(
      SigningCompleted,
      (payload) => record(signingEvent({ type: 'signing.completed', ...payload })),
      consume('webhook-signing-completed'),
    );
    await connected.consume(
      SigningDeclined,
      (payload) => record(signingEvent({ type: 'signing.declined', ...payload })),
      consume('webhook-signing-declined'),
    );
    await connected.consume(
      SigningExpired,
      (payload) => record(signingEvent({ type: 'signing.expired', ...payload })),
      consume('webhook-signing-expired'),
    );
    await connected.serve(
      webhookApiHandlers({
        store,
        secrets,
        allow,
        lookup: options.lookup,
        onQueued: () => deliveryLoop.notify(),
        now,
      }),
      { unavailable: databaseUnavailable },
    );
    const sweep = setInterval(() => {
      void untraced(() => store.sweep(config.WEBHOOK_RETENTION_DAYS, 10_000))
        .then((removed) => {
          if (removed.deliveries || removed.events) logger.info('webhook retention sweep', removed);
        })
        .catch((err: unknown) => logger.warn('webhook retention sweep failed', { err }));
    }, config.WEBHOOK_SWEEP_INTERVAL_MS);
    sweep.unref();
    const health = await startHealthServer({
      port: config.HEALTH_PORT,
      ready: async () => connected.isConnected() && (await database.ping()),
    });
    return {
      healthPort: health.port,
      async stop() {
        clearInterval(sweep);
        await health.close();
        await connected.drain();
        await deliveryLoop.stop();
        await database.close();
      },
    };
  } catch (err) {
    await loop?.stop();
    await bus?.drain().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw err;
  }
};
