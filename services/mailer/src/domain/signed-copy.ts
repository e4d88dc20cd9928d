import type { TSigningCompletedEvent } from '@esign/contracts';
import type { TSignedCopy } from './render-emails';
import { signedFileName } from './text';

/** Where signed PDFs are read from (object storage through @esign/blob in production). */
export interface SignedPdfStore {
  /** The object's bytes; throws when it is larger than `maxBytes`. */
  read(key: string, maxBytes: number): Promise<Buffer>;
  /** A time-limited URL that downloads the object as `fileName`. */
  downloadUrl(key: string, fileName: string, ttlSeconds: number): string;
}

/**
 * The signed PDF for a completion email (a signing request's or an envelope's): attached when it is
 * at most `maxBytes` (base64 makes the email a third larger), otherwise a download link valid for
 * `ttlSeconds`.
 */
export const prepareSignedCopy = async (
  deps: { pdfs: SignedPdfStore; attachmentMaxBytes: number; downloadTtlSeconds: number; now: () => Date },
  event: Pick<TSigningCompletedEvent, 'fileName' | 'objectKey' | 'size'>,
): Promise<{
  copy: TSignedCopy;
  attachment?: { filename: string; content: Buffer; contentType: string };
}> => {
  const filename = signedFileName(event.fileName);
  if (event.size <= deps.attachmentMaxBytes) {
    const content = await deps.pdfs.read(event.objectKey, deps.attachmentMaxBytes);
    return { copy: { attached: true }, attachment: { filename, content, contentType: 'application/pdf' } };
  }
  const until = new Date(deps.now().getTime() + deps.downloadTtlSeconds * 1000).toISOString();
  return {
    copy: {
      attached: false,
      url: deps.pdfs.downloadUrl(event.objectKey, filename, deps.downloadTtlSeconds),
      until,
    },
  };
};
