import { ServiceError } from '@esign/contracts';
import type { PdfInspect } from '@esign/contracts';
import type { BlobStore } from '@esign/blob';
import { isMissingObject, isTooLarge, UPLOAD_PREFIX } from '@esign/blob';
import type { RequestHandler } from '@esign/bus';
import type { SignPool } from '../workers/start-sign-pool';

const sizeLabel = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

/**
 * `pdf.inspect`: read an upload as the signer would (repairing what it would repair) and answer its
 * page count. The upload stays where it is: the caller still owns it. Used by send for signing, to
 * check positions against the document's pages before the request exists. The reading runs on a
 * signing worker (`pool.inspect`), never on this thread: a huge or hostile file meets the same
 * queue, CPU-time budget and heap limit as a signing, and answers as a signing past them would.
 */
export const createInspectPdfHandler =
  (deps: {
    blob: BlobStore;
    pool: Pick<SignPool, 'inspect'>;
    maxFileBytes: number;
  }): RequestHandler<typeof PdfInspect> =>
  async (request) => {
    if (!request.uploadKey.startsWith(UPLOAD_PREFIX) || request.uploadKey.includes('..')) {
      throw new ServiceError(
        'invalid_argument',
        `uploadKey: must be an object under ${UPLOAD_PREFIX}`,
        'uploadKey',
      );
    }
    const bytes = await deps.blob
      .getBuffer(request.uploadKey, { maxBytes: deps.maxFileBytes })
      .catch((err: unknown) => {
        if (isMissingObject(err)) {
          throw new ServiceError('invalid_argument', 'file: the upload is missing or has expired', 'file');
        }
        if (isTooLarge(err)) {
          throw new ServiceError('too_large', `file: larger than ${sizeLabel(deps.maxFileBytes)}`, 'file');
        }
        throw err;
      });
    return deps.pool.inspect(bytes);
  };
