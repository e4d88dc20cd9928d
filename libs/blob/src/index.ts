import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import { Client } from 'minio';
import { isConnectionError, ServiceError } from '@esign/contracts';
import { copySourceOf, createPresigner } from './presign';

export { copySourceOf, createPresigner, type Presigner, type PresignOptions } from './presign';

/** Object storage behind the S3 protocol (MinIO, any S3, or the embedded server in dev and tests). */
export interface BlobStore {
  readonly bucket: string;
  /** Create the bucket when missing and let `uploads/` expire on its own (where the server supports it). */
  ensureBucket(): Promise<void>;
  /**
   * Store a buffer, or a stream of unknown length: a stream shorter than one part goes up in a single
   * PUT, a longer one as a multipart upload whose parts are sent while the rest is still arriving, so
   * memory stays bounded by the part size. Returns the stored size.
   */
  put(key: string, body: Readable | Buffer, options?: { contentType?: string }): Promise<number>;
  get(key: string): Promise<Readable>;
  /** The whole object; with `maxBytes`, refuses (code `TooLarge`) before reading a larger one. */
  getBuffer(key: string, options?: { maxBytes?: number }): Promise<Buffer>;
  stat(key: string): Promise<{ size: number } | undefined>;
  /**
   * Copy an object within the bucket on the server (S3 CopyObject): its bytes, without passing
   * through this process, and its content type and metadata, or `contentType` (and no metadata) when
   * given. A missing source is `NoSuchKey` (404).
   */
  copy(sourceKey: string, destKey: string, options?: { contentType?: string }): Promise<void>;
  remove(key: string): Promise<void>;
  /** Keys under a prefix (for operations and tests; not for hot paths). */
  list(prefix: string): Promise<string[]>;
  /**
   * Up to `limit` objects under a prefix, in key order, after `startAfter` when given, with their
   * last-modified time: one page of a listing that a caller resumes where it stopped.
   */
  listObjects(
    prefix: string,
    options: { startAfter?: string; limit: number },
  ): Promise<{ key: string; lastModified: Date }[]>;
  /** True when the bucket answers. */
  ping(): Promise<boolean>;
}

export interface BlobOptions {
  endpoint: string;
  accessKey: string;
  secretKey: string;
  bucket: string;
  region: string;
  /** Days after which objects under `uploads/` expire. */
  uploadTtlDays?: number;
}

/** Part size of streamed uploads (S3's minimum is 5 MiB for every part but the last). */
export const PART_BYTES = 8 * 1024 * 1024;

const URL_TTL_SECONDS = 15 * 60;

/** Prefix of short-lived uploads (claim checks between the gateway and the workers). */
export const UPLOAD_PREFIX = 'uploads/';

/**
 * Prefix of copies made for one response (an envelope's document marked as not complete): removed once
 * sent, and expired by the bucket's lifecycle like uploads when a process died before removing one.
 * Workers may write here (they may not write among uploads, which clients fill).
 */
export const SCRATCH_PREFIX = 'scratch/';

/** An S3 error answer to a data transfer (the control calls raise minio's own errors). */
export class BlobError extends Error {
  override readonly name = 'BlobError';
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const isNotFound = (err: unknown) =>
  (err instanceof BlobError && err.status === 404) ||
  (err instanceof Error && ['NotFound', 'NoSuchKey'].includes((err as Error & { code?: string }).code ?? ''));

/** True when an error says the object is larger than the caller allowed. */
export const isTooLarge = (err: unknown): boolean => err instanceof BlobError && err.code === 'TooLarge';

/** True when an error says the object does not exist. */
export const isMissingObject = isNotFound;

/** True when an error says object storage itself is down or failing (not that a request was wrong). */
export const isStorageDown = (err: unknown): boolean =>
  (err instanceof BlobError && err.status >= 500) || isConnectionError(err);

/** Storage being down is `unavailable` (503 at the edge, worth a retry), not a bug. */
const storageDown = (err: unknown): unknown =>
  isStorageDown(err)
    ? new ServiceError(
        'unavailable',
        `object storage is unavailable (${(err as Error & { code?: string }).code ?? (err as Error).message})`,
      )
    : err;

/** The same store, with storage outages reported as `unavailable` by every data operation. */
const reportingOutages = (store: BlobStore): BlobStore => {
  const guard = <R>(work: () => Promise<R>): Promise<R> =>
    work().catch((err: unknown) => {
      throw storageDown(err);
    });
  return {
    ...store,
    put: (key, body, options) => guard(() => store.put(key, body, options)),
    get: (key) => guard(() => store.get(key)),
    getBuffer: (key, options) => guard(() => store.getBuffer(key, options)),
    stat: (key) => guard(() => store.stat(key)),
    copy: (sourceKey, destKey, options) => guard(() => store.copy(sourceKey, destKey, options)),
    remove: (key) => guard(() => store.remove(key)),
    list: (prefix) => guard(() => store.list(prefix)),
    listObjects: (prefix, options) => guard(() => store.listObjects(prefix, options)),
  };
};

export const createBlobStore = (options: BlobOptions): BlobStore => reportingOutages(createS3Store(options));

const createS3Store = (options: BlobOptions): BlobStore => {
  const url = new URL(options.endpoint);
  const useSSL = url.protocol === 'https:';
  const client = new Client({
    endPoint: url.hostname,
    port: url.port ? Number(url.port) : useSSL ? 443 : 80,
    useSSL,
    accessKey: options.accessKey,
    secretKey: options.secretKey,
    region: options.region,
    pathStyle: true,
  });
  const { bucket } = options;
  const presign = createPresigner(options);

  // Data moves over plain HTTP to presigned URLs: the signature covers the request, not the payload
  // (UNSIGNED-PAYLOAD), so nothing hashes the bytes on their way; minio-js would MD5 (and, over http,
  // SHA-256) every buffer it puts. Deletes and server-side copies go the same way. URLs are presigned here (./presign), with
  // the day's signing key derived once. Control calls (buckets, multipart, stat, list) use minio-js.
  const agent = useSSL ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = useSSL ? httpsRequest : httpRequest;
  const transfer = (
    method: 'GET' | 'PUT' | 'DELETE',
    url: string,
    options: {
      body?: Buffer;
      contentType?: string;
      /** Headers the URL's signature covers (presigned with them). */
      signed?: Readonly<Record<string, string>>;
      /** Hand back the answer's body unread (a GET's always is). */
      keepBody?: boolean;
    } = {},
  ) =>
    new Promise<IncomingMessage>((resolve, reject) => {
      const { body, contentType } = options;
      const headers: Record<string, string | number> = { ...options.signed };
      if (body) headers['Content-Length'] = body.length;
      if (contentType) headers['Content-Type'] = contentType;
      const req = send(url, { method, agent, headers }, (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          if (method !== 'GET' && !options.keepBody) res.resume();
          resolve(res);
          return;
        }
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => {
          const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? `HTTP${status}`;
          reject(new BlobError(code, status, `${method} ${new URL(url).pathname}: ${code}`));
        });
      });
      req.on('error', reject);
      req.end(body);
    });

  const getBuffer = async (key: string, options?: { maxBytes?: number }): Promise<Buffer> => {
    const res = await transfer('GET', presign('GET', bucket, key, URL_TTL_SECONDS));
    const length = Number(res.headers['content-length']);
    if (options?.maxBytes !== undefined && length > options.maxBytes) {
      res.destroy();
      throw new BlobError('TooLarge', 413, `GET ${key}: ${length} bytes, more than ${options.maxBytes}`);
    }
    if (!Number.isSafeInteger(length)) {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      return Buffer.concat(chunks);
    }
    // One allocation of the announced size: a 25 MB object is copied once, not twice.
    const out = Buffer.allocUnsafe(length);
    let offset = 0;
    for await (const chunk of res) offset += (chunk as Buffer).copy(out, offset);
    if (offset !== length)
      throw new BlobError('IncompleteBody', 502, `GET ${key}: ${offset} of ${length} bytes`);
    return out;
  };

  return {
    bucket,
    async ensureBucket() {
      if (!(await client.bucketExists(bucket))) {
        try {
          await client.makeBucket(bucket, options.region);
        } catch (err) {
          // Another replica may have created it meanwhile.
          if (!(await client.bucketExists(bucket))) throw err;
        }
      }
      try {
        await client.setBucketLifecycle(bucket, {
          Rule: [
            {
              ID: 'expire-uploads',
              Status: 'Enabled',
              Filter: { Prefix: UPLOAD_PREFIX },
              Expiration: { Days: options.uploadTtlDays ?? 1 },
            },
            {
              ID: 'expire-scratch',
              Status: 'Enabled',
              Filter: { Prefix: SCRATCH_PREFIX },
              Expiration: { Days: 1 },
            },
          ],
        });
      } catch {
        // Servers without lifecycle support keep uploads until the workers delete theirs.
      }
    },
    async put(key, body, opts) {
      const contentType = opts?.contentType ?? 'application/octet-stream';
      if (Buffer.isBuffer(body)) {
        await transfer('PUT', presign('PUT', bucket, key, URL_TTL_SECONDS), { body, contentType });
        return body.length;
      }
      // Parts are buffered up to PART_BYTES; a stream shorter than that goes up in one PUT. A longer one
      // is sent part by part while the next part is still arriving (one part in flight, one filling).
      let chunks: Buffer[] = [];
      let buffered = 0;
      let total = 0;
      let uploadId: string | undefined;
      let inFlight: Promise<void> = Promise.resolve();
      const etags: { part: number; etag: string }[] = [];
      const sendPart = async (id: string, part: number, payload: Buffer) => {
        const url = presign('PUT', bucket, key, URL_TTL_SECONDS, { partNumber: String(part), uploadId: id });
        const res = await transfer('PUT', url, { body: payload });
        etags.push({ part, etag: String(res.headers.etag ?? '').replace(/"/g, '') });
      };
      const flushPart = async () => {
        uploadId ??= await client.initiateNewMultipartUpload(bucket, key, { 'Content-Type': contentType });
        const id = uploadId;
        const payload = Buffer.concat(chunks, buffered);
        chunks = [];
        buffered = 0;
        await inFlight;
        const part = etags.length + 1;
        inFlight = sendPart(id, part, payload);
        // Surfaces through the next `await inFlight`; keep it from being unhandled meanwhile.
        inFlight.catch(() => undefined);
      };
      try {
        for await (const chunk of body) {
          const buf = chunk as Buffer;
          chunks.push(buf);
          buffered += buf.length;
          total += buf.length;
          if (buffered >= PART_BYTES) await flushPart();
        }
        if (!uploadId) {
          const whole = Buffer.concat(chunks, buffered);
          await transfer('PUT', presign('PUT', bucket, key, URL_TTL_SECONDS), { body: whole, contentType });
          return total;
        }
        if (buffered > 0) await flushPart();
        await inFlight;
        etags.sort((a, b) => a.part - b.part);
        await client.completeMultipartUpload(bucket, key, uploadId, etags);
        return total;
      } catch (err) {
        await inFlight.catch(() => undefined);
        if (uploadId) await client.abortMultipartUpload(bucket, key, uploadId).catch(() => undefined);
        throw err;
      }
    },
    get: async (key) => transfer('GET', presign('GET', bucket, key, URL_TTL_SECONDS)),
    getBuffer,
    async stat(key) {
      try {
        const s = await client.statObject(bucket, key);
        return { size: s.size };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },
    async copy(sourceKey, destKey, opts) {
      // A PUT to the destination naming the source: the server copies, no byte comes through here.
      const contentType = opts?.contentType;
      const signed: Record<string, string> = { 'x-amz-copy-source': copySourceOf(bucket, sourceKey) };
      if (contentType) signed['x-amz-metadata-directive'] = 'REPLACE';
      const url = presign('PUT', bucket, destKey, URL_TTL_SECONDS, {}, new Date(), signed);
      const res = await transfer('PUT', url, { signed, contentType, keepBody: true });
      let text = '';
      res.setEncoding('utf8');
      for await (const chunk of res) text += chunk as string;
      // S3 may fail a copy after answering 200: the error is then the body (CopyObject's documentation).
      const code = /<Error>[\s\S]*?<Code>([^<]+)<\/Code>/.exec(text)?.[1];
      if (code) throw new BlobError(code, 500, `copy ${sourceKey} to ${destKey}: ${code}`);
    },
    async remove(key) {
      await transfer('DELETE', presign('DELETE', bucket, key, URL_TTL_SECONDS));
    },
    async list(prefix) {
      const keys: string[] = [];
      for await (const item of client.listObjectsV2(bucket, prefix, true)) {
        const name = (item as { name?: string }).name;
        if (name) keys.push(name);
      }
      return keys;
    },
    async listObjects(prefix, { startAfter, limit }) {
      const objects: { key: string; lastModified: Date }[] = [];
      if (limit <= 0) return objects;
      // Leaving the loop early ends the listing: no further pages are requested.
      for await (const item of client.listObjectsV2(bucket, prefix, true, startAfter ?? '')) {
        const { name, lastModified } = item as { name?: string; lastModified?: Date };
        if (name && lastModified) objects.push({ key: name, lastModified: new Date(lastModified) });
        if (objects.length >= limit) break;
      }
      return objects;
    },
    async ping() {
      try {
        return await client.bucketExists(bucket);
      } catch {
        return false;
      }
    },
  };
};

/** `createBlobStore` options from a service's parsed environment (`ZBlobEnv`). */
export const blobOptionsFrom = (env: {
  S3_ENDPOINT: string;
  S3_ACCESS_KEY: string;
  S3_SECRET_KEY: string;
  S3_BUCKET: string;
  S3_REGION: string;
}): BlobOptions => ({
  endpoint: env.S3_ENDPOINT,
  accessKey: env.S3_ACCESS_KEY,
  secretKey: env.S3_SECRET_KEY,
  bucket: env.S3_BUCKET,
  region: env.S3_REGION,
});
