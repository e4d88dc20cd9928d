import { mkdirSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { malformedXml, S3Failure } from './failures';
import { hasBody, readBody, send, sendXml } from './http';
import { discardUpload } from './multipart';
import { BUCKET_NAME } from './storage';
import type { Bucket, Store } from './store';
import { xmlEscape, XMLNS } from './xml';

export const createBucket = async (store: Store, req: IncomingMessage, res: ServerResponse, name: string) => {
  if (hasBody(req)) {
    const xml = await readBody(req);
    if (xml.trim() !== '' && !/<CreateBucketConfiguration[\s>]/.test(xml)) throw malformedXml();
  }
  if (!BUCKET_NAME.test(name) || name.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(name)) {
    throw new S3Failure(400, 'InvalidBucketName', 'The specified bucket is not valid.', {
      BucketName: name,
    });
  }
  if (store.buckets.has(name)) {
    throw new S3Failure(
      409,
      'BucketAlreadyOwnedByYou',
      'Your previous request to create the named bucket succeeded',
      {
        BucketName: name,
      },
    );
  }
  const dir = join(store.root, name);
  mkdirSync(dir, { recursive: true });
  store.buckets.set(name, {
    name,
    dir,
    created: Date.now(),
    objects: new Map(),
    sorted: undefined,
    lifecycle: undefined,
  });
  send(store, res, 200, { Location: `/${name}` });
};

/** DeleteBucket: only an empty one; its uploads in progress go with it. */
export const deleteBucket = (store: Store, res: ServerResponse, bucket: Bucket) => {
  if (bucket.objects.size > 0) {
    throw new S3Failure(409, 'BucketNotEmpty', 'The bucket you tried to delete is not empty', {
      BucketName: bucket.name,
    });
  }
  for (const upload of store.uploads.values()) {
    if (upload.bucket === bucket.name) discardUpload(store, upload);
  }
  store.buckets.delete(bucket.name);
  rmSync(bucket.dir, { recursive: true, force: true });
  send(store, res, 204, {});
};

export const headBucket = (store: Store, res: ServerResponse) =>
  send(store, res, 200, { 'x-amz-bucket-region': store.region });

export const getBucketLocation = (store: Store, res: ServerResponse) =>
  sendXml(store, res, `<LocationConstraint xmlns="${XMLNS}">${xmlEscape(store.region)}</LocationConstraint>`);
