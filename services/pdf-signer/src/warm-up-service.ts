import { randomUUID } from 'node:crypto';
import { PdfSign } from '@esign/contracts';
import { UPLOAD_PREFIX, type BlobStore } from '@esign/blob';
import type { Logger } from '@esign/telemetry';
import type { SignPool } from './workers/start-sign-pool';
import { warmUpSigner } from './workers/warm-up';
import { MAIN_THREAD_WARM_UP_SIGNINGS } from './workers/warm-up-plan';
import type { SignWarmUp, WarmedUp } from './workers/warm-up-plan';

/**
 * Rehearse the main thread's part of `pdf.sign` before the service serves (the workers have warmed
 * themselves up by then): the request checked with its contract as the bus checks it, the synthetic
 * document handed to a worker and back (offline: no TSA, not counted in metrics), and a read of an
 * upload that does not exist from object storage, as the handler reads one (a 404: nothing is
 * written anywhere). Within the same budget as a worker's warm-up; a failure is logged, not fatal.
 */
export const warmUpService = async (options: {
  pool: SignPool;
  blob: Pick<BlobStore, 'getBuffer'>;
  plan: SignWarmUp;
  maxFileBytes: number;
  logger: Logger;
}): Promise<WarmedUp | undefined> => {
  const { pool, blob, plan, logger } = options;
  const accountId = randomUUID();
  const missing = `${UPLOAD_PREFIX}warm-up/${randomUUID()}`;
  try {
    const warmed = await warmUpSigner(
      pool,
      { ...plan, maxSignings: Math.min(plan.maxSignings, MAIN_THREAD_WARM_UP_SIGNINGS) },
      async (input) => {
        PdfSign.request.parse({
          accountId,
          uploadKey: missing,
          fileName: input.fileName,
          kind: input.kind,
          signature: input.signature,
          positions: input.positions,
          signer: input.signer,
          receivedAt: input.receivedAt,
        });
        // Not found, as expected: only the read itself was wanted.
        await blob.getBuffer(missing, { maxBytes: options.maxFileBytes }).catch(() => undefined);
      },
    );
    logger.info('signer warmed up', { ms: warmed.ms, signings: warmed.signings });
    return warmed;
  } catch (err) {
    logger.warn('signer warm-up failed', { err });
    return undefined;
  }
};
