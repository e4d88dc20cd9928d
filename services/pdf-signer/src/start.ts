import { blobOptionsFrom, createBlobStore } from '@esign/blob';
import { busOptionsFrom, connectBus, endpoint } from '@esign/bus';
import { PdfSign } from '@esign/contracts';
import { createLogger, startHealthServer } from '@esign/telemetry';
import type { Logger } from '@esign/telemetry';
import { readSigningMaterial } from './config';
import type { TPdfSignerEnv } from './config';
import { createSigner } from './domain/create-signer';
import { createSignPdfHandler } from './handlers/sign-pdf';

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
 * Start the service: signer (fonts, key and certificate loaded once), object storage (bucket
 * ensured), NATS endpoint `pdf.sign` in the `pdf-signer` queue group, health server. Ready when the
 * bus is connected and the bucket answers.
 */
export const startPdfSigner = async (
  config: TPdfSignerEnv,
  options: { logger?: Logger } = {},
): Promise<PdfSignerService> => {
  const logger = options.logger ?? createLogger({ service: 'pdf-signer', level: config.LOG_LEVEL });
  const signer = await createSigner({
    signing: readSigningMaterial(config),
    warn: (message) => logger.warn(message),
    info: (message, fields) => logger.info(message, fields),
  });
  const blob = createBlobStore(blobOptionsFrom(config));
  await blob.ensureBucket();
  const bus = await connectBus({ ...busOptionsFrom(config), name: 'pdf-signer', logger });
  await bus.serve(
    [endpoint(PdfSign, createSignPdfHandler({ blob, signer, maxFileBytes: config.MAX_FILE_BYTES }))],
    // Bounds memory: a burst of large documents waits here instead of being loaded all at once.
    { maxConcurrent: config.MAX_CONCURRENT_SIGNS },
  );
  const health = await startHealthServer({
    port: config.HEALTH_PORT,
    ready: async () => bus.isConnected() && (await blob.ping()),
  });
  logger.info('sealing with certificate', {
    healthPort: health.port,
    certificate: signer.certificateFingerprint,
    developmentCertificate: signer.developmentCertificate,
  });
  return {
    logger,
    healthPort: health.port,
    certificateFingerprint: signer.certificateFingerprint,
    async stop() {
      await bus.drain();
      await health.close();
    },
  };
};
