import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { blobOptionsFrom, createBlobStore } from '@esign/blob';
import { busOptionsFrom, connectBus, type Bus } from '@esign/bus';
import { createDatabase, databaseUnavailable, migrateSchema } from '@esign/db';
import { createLogger, startHealthServer, type Logger } from '@esign/telemetry';
import type { TDocumentStoreConfig } from './config';
import { createDocumentRepository } from './db/document-repository';
import { CONCURRENT_INDEXES } from './db/concurrent-indexes';
import { schema } from './db/schema';
import { findByIdempotencyKeyHandler } from './handlers/find-by-idempotency-key';
import { findIssuedHandler } from './handlers/find-issued';
import { getHandler } from './handlers/get';
import { listHandler } from './handlers/list';
import { recordHandler } from './handlers/record';
import { signingHandlers } from './handlers/signing';
import { createOutboxRepository } from './outbox/outbox-repository';
import { OUTBOX_EVENTS, publishOutboxBatch } from './outbox/publish-outbox-batch';
import { startOutboxRelay, type OutboxRelay } from './outbox/start-outbox-relay';
import { createSignedSweep, startSignedSweep } from './sweep/signed-sweep';
import { createSigningSweep } from './sweep/signing-sweep';

/** A running document-store. */
export interface DocumentStore {
  /** Port of /healthz and /readyz. */
  readonly healthPort: number;
  /** Stop the outbox relay, stop serving, finish in-flight requests, close connections. */
  stop(): Promise<void>;
}

const MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle', import.meta.url));

/** The clock of `SIGNING_TEST_CLOCK_FILE` (tests): real time plus the offset in the file. */
const testClock = (config: TDocumentStoreConfig): (() => Date) | undefined => {
  const file = config.SIGNING_TEST_CLOCK_FILE;
  if (!file) return undefined;
  if (process.env.NODE_ENV === 'production') {
    throw new Error('SIGNING_TEST_CLOCK_FILE is for tests: it is refused with NODE_ENV=production');
  }
  return () => {
    let offset = 0;
    try {
      offset = Number(readFileSync(file, 'utf8').trim() || '0');
    } catch {
      offset = 0;
    }
    return new Date(Date.now() + (Number.isFinite(offset) ? offset : 0));
  };
};

/**
 * Migrate the `documents` schema, make sure the JetStream event stream exists, start the outbox relay
 * and the sweeps, and serve `document.record`, `document.list`, `document.get`,
 * `document.find-by-idempotency-key`, `document.find-issued` (public verification) and the `signing.*` subjects (send for signing).
 */
export const startDocumentStore = async (
  config: TDocumentStoreConfig,
  options: {
    logger?: Logger;
    /** The clock of the signing requests (expiry, views, declines…); tests control it. */
    now?: () => Date;
  } = {},
): Promise<DocumentStore> => {
  const logger = options.logger ?? createLogger({ service: 'document-store', level: config.LOG_LEVEL });
  const database = createDatabase({
    url: config.DATABASE_URL,
    schema,
    max: config.DB_POOL_MAX,
    applicationName: 'document-store',
  });
  let bus: Bus | undefined;
  let relay: OutboxRelay | undefined;
  let stopSweep: (() => Promise<void>) | undefined;
  let stopSigningSweep: (() => Promise<void>) | undefined;
  const now = options.now ?? testClock(config) ?? (() => new Date());
  const reminders = { intervalMs: config.SIGNING_REMINDER_INTERVAL_MS, max: config.SIGNING_REMINDERS_MAX };
  try {
    await migrateSchema({
      pool: database.pool,
      schema: 'documents',
      migrationsFolder: MIGRATIONS_FOLDER,
      concurrentIndexes: CONCURRENT_INDEXES,
    });
    bus = await connectBus({ ...busOptionsFrom(config), name: 'document-store', logger });
    const connected = bus;
    await connected.ensureEventStream();
    const documents = createDocumentRepository({ db: database.db, pool: database.pool });
    const outboxRelay = startOutboxRelay({
      outbox: createOutboxRepository(database.pool),
      subjects: [...OUTBOX_EVENTS.keys()],
      publish: publishOutboxBatch({ bus: connected, logger }),
      logger,
      pollMs: config.OUTBOX_POLL_MS,
      batchSize: config.OUTBOX_BATCH_SIZE,
      coalesceMs: config.OUTBOX_COALESCE_MS,
    });
    relay = outboxRelay;
    // Signed PDFs that no record holds (the gateway gave up on the signing) are removed after a grace period.
    const sweep =
      config.SIGNED_SWEEP_INTERVAL_MS > 0
        ? startSignedSweep({
            sweep: createSignedSweep({
              pool: database.pool,
              blob: createBlobStore(blobOptionsFrom(config)),
              logger,
              graceMs: config.SIGNED_SWEEP_GRACE_MS,
              batch: config.SIGNED_SWEEP_BATCH,
            }),
            intervalMs: config.SIGNED_SWEEP_INTERVAL_MS,
            logger,
          })
        : undefined;
    stopSweep = sweep ? () => sweep.stop() : undefined;
    // Pending signing requests expire, and their reminders fall due, on the sweep's runs.
    const signingSweep =
      config.SIGNING_SWEEP_INTERVAL_MS > 0
        ? startSignedSweep({
            sweep: createSigningSweep({
              pool: database.pool,
              blob: createBlobStore(blobOptionsFrom(config)),
              logger,
              reminders,
              batch: config.SIGNING_SWEEP_BATCH,
              onWritten: outboxRelay.notify,
              now,
            }),
            intervalMs: config.SIGNING_SWEEP_INTERVAL_MS,
            logger,
            label: 'signing-request sweep',
          })
        : undefined;
    stopSigningSweep = signingSweep ? () => signingSweep.stop() : undefined;
    await connected.serve(
      [
        recordHandler({ documents, pool: database.pool, onRecorded: outboxRelay.notify, now }),
        listHandler({ documents }),
        getHandler({ documents }),
        findIssuedHandler({ documents }),
        findByIdempotencyKeyHandler({ documents }),
        ...signingHandlers({
          pool: database.pool,
          now,
          reminders,
          claimMs: config.SIGNING_CLAIM_MS,
          onWritten: outboxRelay.notify,
        }),
      ],
      // Postgres being down is a 503 for the client, not a bug.
      { unavailable: databaseUnavailable },
    );
    const health = await startHealthServer({
      port: config.HEALTH_PORT,
      ready: async () => connected.isConnected() && (await database.ping()),
    });
    return {
      healthPort: health.port,
      async stop() {
        await health.close();
        // Rows written from here on are published by another replica or after the next start.
        await outboxRelay.stop();
        await sweep?.stop();
        await signingSweep?.stop();
        await connected.drain();
        await database.close();
      },
    };
  } catch (err) {
    await relay?.stop();
    await stopSweep?.();
    await stopSigningSweep?.();
    await bus?.drain().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw err;
  }
};
