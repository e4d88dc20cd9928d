import type { Readable } from 'node:stream';
import { Client } from 'minio';

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
  getBuffer(key: string): Promise<Buffer>;
  stat(key: string): Promise<{ size: number } | undefined>;
  remove(key: string): Promise<void>;
  /** Keys under a prefix (for operations and tests; not for hot paths). */
  list(prefix: string): Promise<string[]>;
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

/** Prefix of short-lived uploads (claim checks between the gateway and the workers). */
export const UPLOAD_PREFIX = 'uploads/';

const isNotFound = (err: unknown) =>
  err instanceof Error && ['NotFound', 'NoSuchKey'].includes((err as Error & { code?: string }).code ?? '');

export const createBlobStore = (options: BlobOptions): BlobStore => {
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

  const getBuffer = async (key: string): Promise<Buffer> => {
    const stream = await client.getObject(bucket, key);
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
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
          ],
        });
      } catch {
        // Servers without lifecycle support (the embedded one) keep uploads; workers delete theirs.
      }
    },
    async put(key, body, opts) {
      const meta = { 'Content-Type': opts?.contentType ?? 'application/octet-stream' };
      if (Buffer.isBuffer(body)) {
        await client.putObject(bucket, key, body, body.length, meta);
        return body.length;
      }
      // minio-js would buffer 64 MiB and list uploads before a stream of unknown size; do it by hand.
      let chunks: Buffer[] = [];
      let buffered = 0;
      let total = 0;
      let uploadId: string | undefined;
      const etags: { part: number; etag: string }[] = [];
      const flushPart = async () => {
        uploadId ??= await client.initiateNewMultipartUpload(bucket, key, meta);
        const part = etags.length + 1;
        const payload = Buffer.concat(chunks, buffered);
        chunks = [];
        buffered = 0;
        const { etag } = await client.uploadPart(
          { bucketName: bucket, objectName: key, uploadID: uploadId, partNumber: part, headers: {} },
          payload,
        );
        etags.push({ part, etag });
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
          await client.putObject(bucket, key, whole, whole.length, meta);
          return total;
        }
        if (buffered > 0) await flushPart();
        await client.completeMultipartUpload(bucket, key, uploadId, etags);
        return total;
      } catch (err) {
        if (uploadId) await client.abortMultipartUpload(bucket, key, uploadId).catch(() => undefined);
        throw err;
      }
    },
    get: (key) => client.getObject(bucket, key),
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
    async remove(key) {
      await client.removeObject(bucket, key);
    },
    async list(prefix) {
      const keys: string[] = [];
      for await (const item of client.listObjectsV2(bucket, prefix, true)) {
        const name = (item as { name?: string }).name;
        if (name) keys.push(name);
      }
      return keys;
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
