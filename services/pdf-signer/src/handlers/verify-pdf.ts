import { ServiceError } from '@esign/contracts';
import type { PdfVerify } from '@esign/contracts';
import type { BlobStore } from '@esign/blob';
import { isMissingObject, isTooLarge, UPLOAD_PREFIX } from '@esign/blob';
import type { RequestHandler } from '@esign/bus';
import type { Verifier } from '../verify/start-verifier';

/**
 * `pdf.verify`: fetch the upload (claim check), check its signatures on the verification worker, and
 * delete the upload whatever happened. The file's bytes never cross the bus.
 */
export const createVerifyPdfHandler =
  (deps: { blob: BlobStore; verifier: Verifier; maxFileBytes: number }): RequestHandler<typeof PdfVerify> =>
  async (request, ctx) => {
    const { blob, verifier, maxFileBytes } = deps;
    if (!request.uploadKey.startsWith(UPLOAD_PREFIX) || request.uploadKey.includes('..')) {
      throw new ServiceError(
        'invalid_argument',
        `uploadKey: must be an object under ${UPLOAD_PREFIX}`,
        'uploadKey',
      );
    }
    try {
      const bytes = await blob
        .getBuffer(request.uploadKey, { maxBytes: maxFileBytes })
        .catch((err: unknown) => {
          if (isMissingObject(err)) {
            throw new ServiceError('invalid_argument', 'file: the upload is missing or has expired', 'file');
          }
          if (isTooLarge(err)) throw new ServiceError('too_large', 'file: too large to verify', 'file');
          throw err;
        });
      const started = performance.now();
      const report = await verifier.verify(bytes);
      ctx.logger.info('document verified', {
        bytes: report.size,
        signatures: report.signatures.length,
        valid: report.signatures.filter((s) => s.cryptographicallyValid).length,
        ms: Math.round(performance.now() - started),
      });
      return report;
    } finally {
      await blob.remove(request.uploadKey).catch((err: unknown) => {
        ctx.logger.warn('could not delete the upload', { uploadKey: request.uploadKey, err });
      });
    }
  };
