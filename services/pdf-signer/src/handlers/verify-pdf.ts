import type { PdfVerify } from '@esign/contracts';
import type { BlobStore } from '@esign/blob';
import type { RequestHandler } from '@esign/bus';
import type { Verifier } from '../verify/start-verifier';
import { withUpload } from './read-upload';

/**
 * `pdf.verify`: fetch the upload (claim check), check its signatures on the verification worker, and
 * delete the upload whatever happened. The file's bytes never cross the bus.
 */
export const createVerifyPdfHandler =
  (deps: { blob: BlobStore; verifier: Verifier; maxFileBytes: number }): RequestHandler<typeof PdfVerify> =>
  (request, ctx) =>
    withUpload(
      {
        blob: deps.blob,
        uploadKey: request.uploadKey,
        maxBytes: deps.maxFileBytes,
        consume: true,
        logger: ctx.logger,
      },
      async (bytes) => {
        const started = performance.now();
        const report = await deps.verifier.verify(bytes);
        ctx.logger.info('document verified', {
          bytes: report.size,
          signatures: report.signatures.length,
          valid: report.signatures.filter((s) => s.cryptographicallyValid).length,
          ms: Math.round(performance.now() - started),
        });
        return report;
      },
    );
