import { ServiceError } from '@esign/contracts';
import type { BlobStore } from '@esign/blob';
import { isMissingObject, isTooLarge, UPLOAD_PREFIX } from '@esign/blob';
import type { Logger, OutageLog } from '@esign/telemetry';

const sizeLabel = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

/**
 * The claim check of `pdf.sign`, `pdf.inspect` and `pdf.verify`: read the upload a request names and
 * hand its bytes to `use`. Only short-lived uploads may be read here (a key elsewhere could name a
 * signed document): `invalid_argument` on `uploadKey` otherwise. A missing or expired upload is
 * `invalid_argument` on `file`, one over `maxBytes` `too_large` on `file`. With `consume`, the upload
 * is deleted once read, whatever happened (the bucket's lifecycle rule removes it later if that fails):
 * the delete is sent as soon as the bytes are in, so it runs while `use` works instead of after it,
 * and is awaited before the answer; without, it stays the caller's. A delete that fails because storage
 * is away goes to `cleanupOutage` (one line per outage, not one per request) when given.
 */
export const withUpload = async <T>(
  options: {
    blob: BlobStore;
    uploadKey: string;
    maxBytes: number;
    consume: boolean;
    logger: Logger;
    cleanupOutage?: OutageLog;
  },
  use: (bytes: Buffer) => Promise<T>,
): Promise<T> => {
  const { blob, uploadKey, maxBytes } = options;
  if (!uploadKey.startsWith(UPLOAD_PREFIX) || uploadKey.includes('..')) {
    throw new ServiceError(
      'invalid_argument',
      `uploadKey: must be an object under ${UPLOAD_PREFIX}`,
      'uploadKey',
    );
  }
  let removed: Promise<void> | undefined;
  const remove = () =>
    (removed ??= blob.remove(uploadKey).then(
      () => options.cleanupOutage?.up(),
      (err: unknown) => {
        if (options.cleanupOutage && err instanceof ServiceError && err.code === 'unavailable')
          return options.cleanupOutage.down(err);
        options.logger.warn('could not delete the upload', { uploadKey, err });
      },
    ));
  try {
    const bytes = await blob.getBuffer(uploadKey, { maxBytes }).catch((err: unknown) => {
      if (isMissingObject(err)) {
        throw new ServiceError('invalid_argument', 'file: the upload is missing or has expired', 'file');
      }
      if (isTooLarge(err))
        throw new ServiceError('too_large', `file: larger than ${sizeLabel(maxBytes)}`, 'file');
      throw err;
    });
    if (options.consume) void remove();
    return await use(bytes);
  } finally {
    if (options.consume) await remove();
  }
};

/**
 * Read an object a request names that is not an upload (an envelope's original or revision): refused
 * (`invalid_argument` on `field`) when the key climbs (`..`), when it is missing, or over `maxBytes`
 * (`too_large`). Never deleted here.
 */
export const readObject = async (options: {
  blob: BlobStore;
  key: string;
  maxBytes: number;
  field: string;
}): Promise<Buffer> => {
  const { blob, key, maxBytes, field } = options;
  if (key.includes('..')) {
    throw new ServiceError('invalid_argument', `${field}: not an object key`, field);
  }
  return blob.getBuffer(key, { maxBytes }).catch((err: unknown) => {
    if (isMissingObject(err)) {
      throw new ServiceError('invalid_argument', `${field}: no such object`, field);
    }
    if (isTooLarge(err))
      throw new ServiceError('too_large', `${field}: larger than ${sizeLabel(maxBytes)}`, field);
    throw err;
  });
};

/** Refuse a key to write that climbs (`..`) or lies among uploads (`invalid_argument` on `field`). */
export const checkTargetKey = (key: string, field: string): void => {
  if (key.includes('..') || key.startsWith(UPLOAD_PREFIX)) {
    throw new ServiceError(
      'invalid_argument',
      `${field}: must be an object key outside ${UPLOAD_PREFIX}`,
      field,
    );
  }
};
