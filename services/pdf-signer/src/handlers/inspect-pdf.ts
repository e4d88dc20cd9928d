import type { PdfInspect } from '@esign/contracts';
import type { BlobStore } from '@esign/blob';
import type { RequestHandler } from '@esign/bus';
import type { SignPool } from '../workers/start-sign-pool';
import { withUpload } from './read-upload';

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
  (request, ctx) =>
    withUpload(
      {
        blob: deps.blob,
        uploadKey: request.uploadKey,
        maxBytes: deps.maxFileBytes,
        consume: false,
        logger: ctx.logger,
      },
      (bytes) => deps.pool.inspect(bytes),
    );
