import { createPresigner, type BlobOptions } from '@esign/blob';
import type { Clock } from '../domain/clock';

/** A link to the signed PDF for one attempt's payload, and when it stops working. */
export type DownloadUrl = (objectKey: string) => Promise<{ url: string; expiresAt: string }>;

/**
 * Presigned GETs of the signed PDFs, valid `ttlSeconds` from `now`, made against the endpoint
 * receivers reach (`publicEndpoint`, default the storage's own). Presigning is local computation
 * (SigV4): no request to storage.
 */
export const createDownloadLinks = (options: {
  blob: BlobOptions;
  publicEndpoint: string | undefined;
  ttlSeconds: number;
  now: Clock;
}): DownloadUrl => {
  const { blob, ttlSeconds } = options;
  const presign = createPresigner({ ...blob, endpoint: options.publicEndpoint ?? blob.endpoint });
  return (objectKey) => {
    const at = options.now();
    const url = presign(
      'GET',
      blob.bucket,
      objectKey,
      ttlSeconds,
      { 'response-content-type': 'application/pdf' },
      at,
    );
    return Promise.resolve({ url, expiresAt: new Date(at.getTime() + ttlSeconds * 1000).toISOString() });
  };
};
