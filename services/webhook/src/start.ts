import { fileURLToPath } from 'node:url';
import {
  busOptionsFrom,
  busResource,
  countParkedEvents,
  observeConsumerLag,
  type Bus,
  type ConsumeOptions,
} from '@esign/bus';
import {
  DocumentSigned,
  EnvelopeCanceled,
  EnvelopeCompleted,
  EnvelopeDeclined,
  EnvelopeExpired,
  EnvelopeRecipientApproved,
  EnvelopeRecipientSigned,
  EnvelopeRecipientTurn,
  EnvelopeRecipientViewed,
  EnvelopeSent,
  SigningCompleted,
  SigningDeclined,
  SigningExpired,
  SigningViewed,
  WebhookEndpointDisabled,
} from '@esign/contracts';
import { databaseUnavailable, isDatabaseDown, migratedDatabase } from '@esign/db';
import {
  createLogger,
  healthServer,
  startService,
  type Logger,
  type Resource,
  metricsResource,
} from '@esign/telemetry';
import { createDeliveryMetrics } from './adapters/delivery-metrics';
import { createHttpPoster, type HttpPoster } from './adapters/http-poster';
import { DEVELOPMENT_SECRET_KEY, type TWebhookConfig } from './config';
import { schema } from './db/schema';
import { createWebhookStore } from './db/store';
import type { DeliveryLoop } from './delivery/delivery-loop';
import { startDeliveries } from './delivery/start-deliveries';
import { startRetentionSweep } from './delivery/retention-sweep';
import type { Clock } from './domain/clock';
import { createSecretBox } from './domain/secret-box';
import type { Lookup } from './domain/ssrf';
import { createEndpointHandler } from './handlers/create-endpoint';
import { deleteEndpointHandler } from './handlers/delete-endpoint';
import type { WebhookServiceDeps } from './handlers/deps';
import { documentSignedHandler } from './handlers/document-signed';
import { envelopeCanceledHandler } from './handlers/envelope-canceled';
import { envelopeCompletedHandler } from './handlers/envelope-completed';
import { envelopeDeclinedHandler } from './handlers/envelope-declined';
import { envelopeExpiredHandler } from './handlers/envelope-expired';
import { envelopeRecipientApprovedHandler } from './handlers/envelope-recipient-approved';
import { envelopeRecipientSignedHandler } from './handlers/envelope-recipient-signed';
import { envelopeRecipientTurnHandler } from './handlers/envelope-recipient-turn';
import { envelopeRecipientViewedHandler } from './handlers/envelope-recipient-viewed';
import { envelopeSentHandler } from './handlers/envelope-sent';
import { getEndpointHandler } from './handlers/get-endpoint';
import { listDeliveriesHandler } from './handlers/list-deliveries';
import { listEndpointsHandler } from './handlers/list-endpoints';
import { replayEventHandler } from './handlers/replay-event';
import { rotateSecretHandler } from './handlers/rotate-secret';
import { sendTestEventHandler } from './handlers/send-test-event';
import { signingCompletedHandler } from './handlers/signing-completed';
import { signingDeclinedHandler } from './handlers/signing-declined';
import { signingExpiredHandler } from './handlers/signing-expired';
import { signingViewedHandler } from './handlers/signing-viewed';
import { updateEndpointHandler } from './handlers/update-endpoint';

/** A running webhook service. */
export interface WebhookService {
  readonly healthPort: number;
  stop(): Promise<void>;
}

const MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle', import.meta.url));

/**
 * Durable consumers of this service: replicas share them, redeliveries are recorded once, and an
 * event met by a database outage is recorded as soon as the database is back (not minutes later).
 */
const durable = (name: string): ConsumeOptions => ({
  durable: name,
  concurrency: 4,
  maxDeliveries: 20,
  outage: { isOutage: isDatabaseDown },
});

/**
 * Migrate the `webhook` schema; consume `events.document.signed`, the signing events and the envelope
 * events (`events.envelope.*` but the internal `finalize-due`) with durable consumers
 * (`webhook-<event>`), turning each into event rows and one delivery per subscribed endpoint; run the delivery loop and the retention sweep; serve the `webhook.*` subjects the
 * gateway's API calls.
 */
export const startWebhookService = (
  config: TWebhookConfig,
  options: {
    logger?: Logger;
    /** The clock of every schedule (retries, leases, disabling); tests move it. */
    now?: Clock;
    /** The resolver of endpoint host names (tests answer names with their own addresses). */
    lookup?: Lookup;
    /** The HTTP client of the attempts (default: node:http, pinned to the checked address). */
    http?: HttpPoster;
  } = {},
): Promise<WebhookService> => {
  const logger = options.logger ?? createLogger({ service: 'webhook', level: config.LOG_LEVEL });
  const now = options.now ?? (() => new Date());
  if (config.WEBHOOK_SECRET_KEY === undefined) {
    logger.warn('WEBHOOK_SECRET_KEY is unset: endpoint secrets are sealed with the public development key');
  }
  const secrets = createSecretBox(config.WEBHOOK_SECRET_KEY ?? DEVELOPMENT_SECRET_KEY);
  const targets = { allow: config.WEBHOOK_ALLOW_NETWORKS.list, lookup: options.lookup };
  return startService(async (use, ready) => {
    const metrics = await use(metricsResource({ service: 'webhook', exporter: config.METRICS_EXPORTER }));
    const database = await use(
      migratedDatabase({
        url: config.DATABASE_URL,
        schema,
        max: config.DB_POOL_MAX,
        applicationName: 'webhook',
        logger,
        schemaName: 'webhook',
        migrationsFolder: MIGRATIONS_FOLDER,
      }),
    );
    const store = createWebhookStore(database.db);
    // Before the bus, so it stops after the bus has drained: the deliveries the last events queued
    // are attempted, and an endpoint disabled meanwhile is still announced.
    const connected: { bus?: Bus } = {};
    const deliveries = await use(
      deliveryLoop(() =>
        startDeliveries({
          config,
          store,
          http: options.http ?? createHttpPoster(),
          secrets,
          targets,
          publishDisabled: async (event) => {
            if (!connected.bus) throw new Error('the bus is not connected yet');
            await connected.bus.publish(WebhookEndpointDisabled, event, { msgId: event.eventId });
          },
          outcomes: createDeliveryMetrics({ metrics }),
          logger,
          now,
        }),
      ),
    );
    const bus = await use(
      busResource({
        ...busOptionsFrom(config),
        name: 'webhook',
        logger,
        onParked: countParkedEvents(metrics),
      }),
    );
    connected.bus = bus;
    const deps: WebhookServiceDeps = { store, secrets, targets, now, onQueued: () => deliveries.notify() };
    const consumptions = [
      await bus.consume(DocumentSigned, documentSignedHandler(deps), durable('webhook-document-signed')),
      await bus.consume(SigningViewed, signingViewedHandler(deps), durable('webhook-signing-viewed')),
      await bus.consume(
        SigningCompleted,
        signingCompletedHandler(deps),
        durable('webhook-signing-completed'),
      ),
      await bus.consume(SigningDeclined, signingDeclinedHandler(deps), durable('webhook-signing-declined')),
      await bus.consume(SigningExpired, signingExpiredHandler(deps), durable('webhook-signing-expired')),
      await bus.consume(EnvelopeSent, envelopeSentHandler(deps), durable('webhook-envelope-sent')),
      await bus.consume(
        EnvelopeRecipientTurn,
        envelopeRecipientTurnHandler(deps),
        durable('webhook-envelope-recipient-turn'),
      ),
      await bus.consume(
        EnvelopeRecipientViewed,
        envelopeRecipientViewedHandler(deps),
        durable('webhook-envelope-recipient-viewed'),
      ),
      await bus.consume(
        EnvelopeRecipientSigned,
        envelopeRecipientSignedHandler(deps),
        durable('webhook-envelope-recipient-signed'),
      ),
      await bus.consume(
        EnvelopeRecipientApproved,
        envelopeRecipientApprovedHandler(deps),
        durable('webhook-envelope-recipient-approved'),
      ),
      await bus.consume(
        EnvelopeDeclined,
        envelopeDeclinedHandler(deps),
        durable('webhook-envelope-declined'),
      ),
      await bus.consume(
        EnvelopeCompleted,
        envelopeCompletedHandler(deps),
        durable('webhook-envelope-completed'),
      ),
      await bus.consume(
        EnvelopeCanceled,
        envelopeCanceledHandler(deps),
        durable('webhook-envelope-canceled'),
      ),
      await bus.consume(EnvelopeExpired, envelopeExpiredHandler(deps), durable('webhook-envelope-expired')),
    ];
    observeConsumerLag({ bus, metrics, durables: consumptions.map((c) => c.durable) });
    await bus.serve(
      [
        createEndpointHandler(deps),
        listEndpointsHandler(deps),
        getEndpointHandler(deps),
        updateEndpointHandler(deps),
        deleteEndpointHandler(deps),
        rotateSecretHandler(deps),
        listDeliveriesHandler(deps),
        replayEventHandler(deps),
        sendTestEventHandler(deps),
      ],
      { unavailable: databaseUnavailable },
    );
    await use({
      name: 'retention sweep',
      start: () =>
        startRetentionSweep({
          store,
          retentionDays: config.WEBHOOK_RETENTION_DAYS,
          intervalMs: config.WEBHOOK_SWEEP_INTERVAL_MS,
          logger,
        }),
      stop: (sweep) => sweep.stop(),
    });
    const health = await use(healthServer({ port: config.HEALTH_PORT, ready, metrics }));
    return { healthPort: health.port };
  });
};

/** The delivery loop: it finishes the attempts in flight when stopped. */
const deliveryLoop = (start: () => DeliveryLoop): Resource<DeliveryLoop> => ({
  name: 'delivery loop',
  start,
  stop: (loop) => loop.stop(),
});
