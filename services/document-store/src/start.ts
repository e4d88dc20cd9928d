import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { blobOptionsFrom, createBlobStore } from '@esign/blob';
import { busOptionsFrom, busResource, countParkedEvents, observeConsumerLag } from '@esign/bus';
import { databaseUnavailable, isDatabaseDown, migratedDatabase } from '@esign/db';
import { EnvelopeFinalizeDue, PdfCompleteEnvelope, PdfPrepareEnvelope } from '@esign/contracts';
import {
  createLogger,
  healthServer,
  startService,
  type Logger,
  type Resource,
  metricsResource,
} from '@esign/telemetry';
import type { TDocumentStoreConfig } from './config';
import { createDocumentRepository } from './db/document-repository';
import { CONCURRENT_INDEXES } from './db/concurrent-indexes';
import { schema } from './db/schema';
import { countSweepRuns } from './metrics/count-sweep-runs';
import { observeOutbox } from './metrics/observe-outbox';
import { observeSigningRequests } from './metrics/observe-signing-requests';
import { findByIdempotencyKeyHandler } from './handlers/find-by-idempotency-key';
import { findIssuedHandler } from './handlers/find-issued';
import { getHandler } from './handlers/get';
import { listHandler } from './handlers/list';
import { recordHandler } from './handlers/record';
import { attachSigningLinkHandler } from './handlers/signing/attach-signing-link';
import { cancelSigningRequestHandler } from './handlers/signing/cancel-signing-request';
import { claimSigningRequestHandler } from './handlers/signing/claim-signing-request';
import { createSigningRequestHandler } from './handlers/signing/create-signing-request';
import { declineSigningRequestHandler } from './handlers/signing/decline-signing-request';
import type { SigningHandlerDeps } from './handlers/signing/deps';
import { findSigningRequestByTokenHandler } from './handlers/signing/find-signing-request-by-token';
import { getSigningStatusHandler } from './handlers/signing/get-signing-status';
import { listSigningRequestsHandler } from './handlers/signing/list-signing-requests';
import { recordSigningViewHandler } from './handlers/signing/record-signing-view';
import { releaseSigningRequestHandler } from './handlers/signing/release-signing-request';
import { resendSigningRequestHandler } from './handlers/signing/resend-signing-request';
import { approveEnvelopeHandler } from './handlers/envelope/approve-envelope';
import { attachEnvelopeLinkHandler } from './handlers/envelope/attach-envelope-link';
import { cancelEnvelopeHandler } from './handlers/envelope/cancel-envelope';
import { claimEnvelopeHandler } from './handlers/envelope/claim-envelope';
import { createEnvelopeHandler } from './handlers/envelope/create-envelope';
import { declineEnvelopeHandler } from './handlers/envelope/decline-envelope';
import {
  requestEnvelopeCodeHandler,
  setEnvelopeCodeHandler,
  verifyEnvelopeCodeHandler,
} from './handlers/envelope/email-code';
import type { EnvelopeHandlerDeps } from './handlers/envelope/deps';
import { finalizeDueHandler } from './handlers/envelope/finalize-due';
import { findEnvelopeByTokenHandler } from './handlers/envelope/find-envelope-by-token';
import { getEnvelopeHandler } from './handlers/envelope/get-envelope';
import { getEnvelopeDocumentHandler } from './handlers/envelope/get-envelope-document';
import { listEnvelopesHandler } from './handlers/envelope/list-envelopes';
import { recordEnvelopeRevisionHandler } from './handlers/envelope/record-envelope-revision';
import { recordEnvelopeViewHandler } from './handlers/envelope/record-envelope-view';
import { releaseEnvelopeHandler } from './handlers/envelope/release-envelope';
import { replaceEnvelopeRecipientHandler } from './handlers/envelope/replace-envelope-recipient';
import { resendEnvelopeRecipientHandler } from './handlers/envelope/resend-envelope-recipient';
import { createOutboxRepository } from './outbox/outbox-repository';
import { OUTBOX_EVENTS, publishOutboxBatch } from './outbox/publish-outbox-batch';
import { startOutboxRelay } from './outbox/start-outbox-relay';
import { createSignedSweep, startSignedSweep } from './sweep/signed-sweep';
import { createEnvelopeSweep } from './sweep/envelope-sweep';
import { createSigningSweep } from './sweep/signing-sweep';

/** How long finalizing waits for pdf-signer to seal an envelope's document (certificate and seal). */
const COMPLETE_ENVELOPE_TIMEOUT_MS = 60_000;

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
 * `document.find-by-idempotency-key`, `document.find-issued` (public verification), the `signing.*`
 * subjects (send for signing) and the `envelope.*` subjects (envelopes), and consume
 * `events.envelope.finalize-due`.
 */
export const startDocumentStore = (
  config: TDocumentStoreConfig,
  options: {
    logger?: Logger;
    /** The clock of the signing requests (expiry, views, declines…); tests control it. */
    now?: () => Date;
    /**
     * The clock of the sweep of signed objects, whose ages are real storage times (tests move it past
     * the grace period instead of waiting it out). Not `now`: a signing test's clock days ahead
     * would sweep the objects of signings under way.
     */
    signedSweepNow?: () => Date;
  } = {},
): Promise<DocumentStore> => {
  const logger = options.logger ?? createLogger({ service: 'document-store', level: config.LOG_LEVEL });
  const now = options.now ?? testClock(config) ?? (() => new Date());
  const reminders = { intervalMs: config.SIGNING_REMINDER_INTERVAL_MS, max: config.SIGNING_REMINDERS_MAX };
  return startService(async (use, ready) => {
    const metrics = await use(
      metricsResource({ service: 'document-store', exporter: config.METRICS_EXPORTER }),
    );
    const database = await use(
      migratedDatabase({
        url: config.DATABASE_URL,
        schema,
        max: config.DB_POOL_MAX,
        applicationName: 'document-store',
        logger,
        schemaName: 'documents',
        migrationsFolder: MIGRATIONS_FOLDER,
        concurrentIndexes: CONCURRENT_INDEXES,
      }),
    );
    const bus = await use(
      busResource({
        ...busOptionsFrom(config),
        name: 'document-store',
        logger,
        onParked: countParkedEvents(metrics),
      }),
    );
    await bus.ensureEventStream();
    const documents = createDocumentRepository({ db: database.db, pool: database.pool });
    observeOutbox({ pool: database.pool, metrics });
    observeSigningRequests({ pool: database.pool, metrics });
    const sweepCounters = { runs: metrics.counter('sweepRuns'), items: metrics.counter('sweepCollected') };
    // Stopped after the sweeps, whose writes it publishes.
    const outboxRelay = await use({
      name: 'outbox relay',
      start: () =>
        startOutboxRelay({
          outbox: createOutboxRepository(database.pool),
          subjects: [...OUTBOX_EVENTS.keys()],
          publish: publishOutboxBatch({ bus, logger }),
          logger,
          pollMs: config.OUTBOX_POLL_MS,
          batchSize: config.OUTBOX_BATCH_SIZE,
          coalesceMs: config.OUTBOX_COALESCE_MS,
        }),
      // Rows written from here on are published by another replica or after the next start.
      stop: (relay) => relay.stop(),
    });
    // Signed PDFs that no record holds (the gateway gave up on the signing) are removed after a grace period.
    if (config.SIGNED_SWEEP_INTERVAL_MS > 0) {
      await use(
        sweepResource({
          sweep: countSweepRuns({
            sweep: createSignedSweep({
              pool: database.pool,
              blob: createBlobStore(blobOptionsFrom(config)),
              logger,
              graceMs: config.SIGNED_SWEEP_GRACE_MS,
              batch: config.SIGNED_SWEEP_BATCH,
            }),
            name: 'signed_objects',
            collected: (run) => ({ signed_object: run.removed.length }),
            ...sweepCounters,
          }),
          intervalMs: config.SIGNED_SWEEP_INTERVAL_MS,
          logger,
          now: options.signedSweepNow,
        }),
      );
    }
    // Pending signing requests expire, and their reminders fall due, on the sweep's runs.
    if (config.SIGNING_SWEEP_INTERVAL_MS > 0) {
      await use(
        sweepResource({
          sweep: countSweepRuns({
            sweep: createSigningSweep({
              pool: database.pool,
              blob: createBlobStore(blobOptionsFrom(config)),
              logger,
              reminders,
              batch: config.SIGNING_SWEEP_BATCH,
              onWritten: outboxRelay.notify,
              now,
            }),
            name: 'signing_requests',
            collected: (run) => ({
              expired_request: run.expired.length,
              reminder: run.reminded.length,
              original: run.originalsRemoved.length,
            }),
            ...sweepCounters,
          }),
          intervalMs: config.SIGNING_SWEEP_INTERVAL_MS,
          logger,
          label: 'signing-request sweep',
        }),
      );
    }
    // Pending envelopes expire on the same schedule and clock as signing requests.
    if (config.SIGNING_SWEEP_INTERVAL_MS > 0) {
      await use(
        sweepResource({
          sweep: countSweepRuns({
            sweep: createEnvelopeSweep({
              pool: database.pool,
              logger,
              batch: config.SIGNING_SWEEP_BATCH,
              onWritten: outboxRelay.notify,
              now,
            }),
            name: 'envelopes',
            collected: (run) => ({ expired_envelope: run.expired.length, reminder: run.reminded.length }),
            ...sweepCounters,
          }),
          intervalMs: config.SIGNING_SWEEP_INTERVAL_MS,
          logger,
          label: 'envelope sweep',
        }),
      );
    }
    const envelope: EnvelopeHandlerDeps = {
      pool: database.pool,
      now,
      claimMs: config.SIGNING_CLAIM_MS,
      onWritten: outboxRelay.notify,
    };
    // Envelopes whose signers and approvers have all acted are sealed (by pdf-signer) and recorded.
    const finalizing = await bus.consume(
      EnvelopeFinalizeDue,
      finalizeDueHandler({
        ...envelope,
        completeEnvelope: (request) =>
          bus.request(PdfCompleteEnvelope, request, { timeoutMs: COMPLETE_ENVELOPE_TIMEOUT_MS }),
      }),
      {
        durable: 'document-store-envelope-finalize',
        concurrency: 4,
        maxDeliveries: 20,
        ackWaitMs: 2 * COMPLETE_ENVELOPE_TIMEOUT_MS,
        outage: { isOutage: isDatabaseDown },
      },
    );
    observeConsumerLag({ bus, metrics, durables: [finalizing.durable] });
    const signing: SigningHandlerDeps = {
      pool: database.pool,
      now,
      reminders,
      claimMs: config.SIGNING_CLAIM_MS,
      onWritten: outboxRelay.notify,
    };
    await bus.serve(
      [
        recordHandler({ documents, pool: database.pool, onRecorded: outboxRelay.notify, now }),
        listHandler({ documents }),
        getHandler({ documents }),
        findIssuedHandler({ documents }),
        findByIdempotencyKeyHandler({ documents }),
        createSigningRequestHandler(signing),
        attachSigningLinkHandler(signing),
        findSigningRequestByTokenHandler(signing),
        recordSigningViewHandler(signing),
        declineSigningRequestHandler(signing),
        cancelSigningRequestHandler(signing),
        resendSigningRequestHandler(signing),
        getSigningStatusHandler(signing),
        listSigningRequestsHandler(signing),
        claimSigningRequestHandler(signing),
        releaseSigningRequestHandler(signing),
        createEnvelopeHandler({
          ...envelope,
          // Revision 0 (the form fields and the certificate's pages) is written under scratch/ before the
          // envelope exists, and copied into place as its transaction ends.
          revisionZero: {
            prepare: (request) =>
              bus.request(PdfPrepareEnvelope, request, { timeoutMs: COMPLETE_ENVELOPE_TIMEOUT_MS }),
            blob: createBlobStore(blobOptionsFrom(config)),
            logger,
          },
        }),
        getEnvelopeHandler(envelope),
        listEnvelopesHandler(envelope),
        cancelEnvelopeHandler(envelope),
        resendEnvelopeRecipientHandler(envelope),
        replaceEnvelopeRecipientHandler(envelope),
        getEnvelopeDocumentHandler(envelope),
        attachEnvelopeLinkHandler(envelope),
        findEnvelopeByTokenHandler(envelope),
        recordEnvelopeViewHandler(envelope),
        claimEnvelopeHandler(envelope),
        releaseEnvelopeHandler(envelope),
        recordEnvelopeRevisionHandler(envelope),
        approveEnvelopeHandler(envelope),
        declineEnvelopeHandler(envelope),
        verifyEnvelopeCodeHandler(envelope),
        requestEnvelopeCodeHandler(envelope),
        setEnvelopeCodeHandler(envelope),
      ],
      // Postgres being down is a 503 for the client, not a bug.
      { unavailable: databaseUnavailable },
    );
    const health = await use(healthServer({ port: config.HEALTH_PORT, ready, metrics }));
    return { healthPort: health.port };
  });
};

/** A sweep run every interval, as a resource: stopping it waits for the run under way. */
const sweepResource = (
  options: Parameters<typeof startSignedSweep>[0],
): Resource<{ stop(): Promise<void> }> => ({
  name: options.label ?? 'signed-object sweep',
  start: () => startSignedSweep(options),
  stop: (sweep) => sweep.stop(),
});
