import { blobOptionsFrom, createBlobStore } from '@esign/blob';
import { busOptionsFrom, busResource, endpoint } from '@esign/bus';
import {
  PdfCompleteEnvelope,
  PdfPrepareEnvelope,
  PdfInspect,
  PdfMarkIncomplete,
  PdfSign,
  PdfSignRevision,
  PdfVerify,
} from '@esign/contracts';
import { createLogger, createOutageLog, healthServer, startService, metricsResource } from '@esign/telemetry';
import type { Logger } from '@esign/telemetry';
import {
  readSigningMaterial,
  revocationSettings,
  signWorkerCount,
  timestampSettings,
  warmUpSettings,
} from './config';
import type { TPdfSignerEnv } from './config';
import {
  createCompleteEnvelopeHandler,
  createPrepareEnvelopeHandler,
  createMarkIncompleteHandler,
  createSignRevisionHandler,
} from './handlers/envelope';
import { createInspectPdfHandler } from './handlers/inspect-pdf';
import { createSignPdfHandler } from './handlers/sign-pdf';
import { createVerifyPdfHandler } from './handlers/verify-pdf';
import { startVerifier } from './verify/start-verifier';
import { warmUpService } from './warm-up-service';
import { createSignerMetrics } from './workers/signer-metrics';
import { startSignPool } from './workers/start-sign-pool';
import { setHeapGrowingPercent } from './workers/worker-limits';

/** A running pdf-signer. */
export interface PdfSignerService {
  readonly logger: Logger;
  /** Port of /healthz and /readyz. */
  readonly healthPort: number;
  /** SHA-256 fingerprint of the sealing certificate. */
  readonly certificateFingerprint: string;
  /** Stop serving, finish in-flight requests, close connections. */
  stop(): Promise<void>;
}

/**
 * Start the service: the pool of signing workers (each loads fonts, key and certificate once), object storage (bucket
 * ensured), NATS endpoints `pdf.sign`, `pdf.inspect`, `pdf.sign-revision`, `pdf.complete-envelope`, `pdf.mark-incomplete`, `pdf.prepare-envelope` (all on the signing workers) and `pdf.verify` (on a verification worker of its own) in the `pdf-signer` queue group, health server. Ready when the
 * bus is connected and the bucket answers.
 */
export const startPdfSigner = (
  config: TPdfSignerEnv,
  options: { logger?: Logger } = {},
): Promise<PdfSignerService> => {
  const logger = options.logger ?? createLogger({ service: 'pdf-signer', level: config.LOG_LEVEL });
  return startService(async (use, ready) => {
    // Process-wide, before any worker starts: how far each heap may grow between full collections.
    setHeapGrowingPercent(config.SIGN_HEAP_GROWING_PERCENT);
    const metrics = await use(metricsResource({ service: 'pdf-signer', exporter: config.METRICS_EXPORTER }));
    // Created once: the signing pool and the verifier record into the same instruments.
    const signerMetrics = createSignerMetrics(metrics);
    // Signing runs on worker threads started here, once: this thread only moves bytes and messages.
    const signer = await use({
      name: 'signing workers',
      start: () =>
        startSignPool({
          size: signWorkerCount(config),
          jobBudgetMs: config.SIGN_JOB_BUDGET_MS,
          workerHeapMb: config.SIGN_WORKER_HEAP_MB,
          workerYoungMb: config.SIGN_WORKER_YOUNG_MB,
          spillMs: config.SIGN_SPILL_MS,
          maxJobsPerWorker: config.SIGN_JOBS_PER_WORKER,
          signing: readSigningMaterial(config),
          timestamps: timestampSettings(config),
          revocation: revocationSettings(config),
          warmUp: warmUpSettings(config),
          logger,
          metrics: signerMetrics,
        }),
      stop: (pool) => pool.close(),
      ready: (pool) => pool.readyWorkers() > 0,
    });
    // Public verification: its own worker thread and its own small queue, so that it never takes a
    // signing worker or holds more than two files in memory. Started before the bus, so that the
    // bus drains the verifications in flight before it closes.
    const verifier = await use({
      name: 'verification worker',
      start: () =>
        startVerifier({
          budgetMs: config.VERIFY_JOB_BUDGET_MS,
          heapMb: config.SIGN_WORKER_HEAP_MB,
          youngMb: config.SIGN_WORKER_YOUNG_MB,
          setup: { ownFingerprint256: signer.certificateFingerprint },
          logger,
          metrics: signerMetrics,
        }),
      stop: (started) => started.close(),
    });
    const blob = await use({
      name: 'object storage',
      start: async () => {
        const blob = createBlobStore(blobOptionsFrom(config));
        await blob.ensureBucket();
        return blob;
      },
      ready: (blob) => blob.ping(),
    });
    // Before the bus: no request reaches this process until its warm-up is done (SIGN_WARM_UP_MS).
    const warmUp = warmUpSettings(config);
    if (warmUp) {
      await use({
        name: 'warm-up',
        start: () =>
          warmUpService({ pool: signer, blob, plan: warmUp, maxFileBytes: config.MAX_FILE_BYTES, logger }),
      });
    }
    const bus = await use(busResource({ ...busOptionsFrom(config), name: 'pdf-signer', logger }));
    await bus.serve(
      [
        endpoint(
          PdfSign,
          createSignPdfHandler({
            blob,
            signer,
            maxFileBytes: config.MAX_FILE_BYTES,
            verifyBaseUrl: config.PUBLIC_BASE_URL,
            padesLevel: config.PADES_LEVEL,
            uploadCleanupOutage: createOutageLog({ logger, dependency: 'object storage (upload clean-up)' }),
          }),
        ),
        endpoint(
          PdfInspect,
          createInspectPdfHandler({ blob, pool: signer, maxFileBytes: config.MAX_FILE_BYTES }),
        ),
        // Envelopes: their work runs on the signing workers too.
        endpoint(
          PdfSignRevision,
          createSignRevisionHandler({
            blob,
            signer,
            maxFileBytes: config.MAX_FILE_BYTES,
            padesLevel: config.PADES_LEVEL,
          }),
        ),
        endpoint(
          PdfCompleteEnvelope,
          createCompleteEnvelopeHandler({
            blob,
            signer,
            maxFileBytes: config.MAX_FILE_BYTES,
            padesLevel: config.PADES_LEVEL,
          }),
        ),
        endpoint(
          PdfPrepareEnvelope,
          createPrepareEnvelopeHandler({ blob, signer, maxFileBytes: config.MAX_FILE_BYTES }),
        ),
        endpoint(
          PdfMarkIncomplete,
          createMarkIncompleteHandler({ blob, signer, maxFileBytes: config.MAX_FILE_BYTES }),
        ),
      ],
      // Bounds memory: a burst of large documents waits here instead of being loaded all at once.
      { maxConcurrent: config.MAX_CONCURRENT_SIGNS },
    );
    await bus.serve(
      [endpoint(PdfVerify, createVerifyPdfHandler({ blob, verifier, maxFileBytes: config.MAX_FILE_BYTES }))],
      { maxConcurrent: 2 },
    );
    const health = await use(healthServer({ port: config.HEALTH_PORT, ready, metrics }));
    logger.info('sealing with certificate', {
      healthPort: health.port,
      certificate: signer.certificateFingerprint,
      signWorkers: signWorkerCount(config),
      developmentCertificate: signer.developmentCertificate,
      timestampAuthorities: config.TSA_URLS.length,
      padesLevel: config.PADES_LEVEL,
    });
    return { logger, healthPort: health.port, certificateFingerprint: signer.certificateFingerprint };
  });
};
