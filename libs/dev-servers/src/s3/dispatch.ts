import type { IncomingMessage, ServerResponse } from 'node:http';
import { copyObject } from './copy';
import { createBucket, deleteBucket, getBucketLocation, headBucket } from './buckets';
import { noSuchBucket, notImplemented, S3Failure } from './failures';
import type { Query } from './http';
import { deleteLifecycle, getLifecycle, putLifecycle } from './lifecycle';
import { listBuckets, listObjects } from './listing';
import {
  abortUpload,
  completeUpload,
  initiateUpload,
  listParts,
  listUploads,
  uploadOf,
  uploadPart,
} from './multipart';
import { deleteObject, deleteObjects, getObject, putObject, RESPONSE_OVERRIDES } from './objects';
import type { Store } from './store';

/**
 * Which operation a request is: by method, bucket, key and subresources (the query parameters that
 * are not authentication, presigning or response overrides). Anything else is 501 NotImplemented.
 */

const MAX_KEY_BYTES = 1024;

/** Query parameters of authentication and presigning, which are not subresources. */
const isAuthParam = (name: string) =>
  name.length > 6 && (name.startsWith('X-Amz-') || name.toLowerCase().startsWith('x-amz-'));
const IGNORED_PARAMS = new Set(['x-id', 'AWSAccessKeyId', 'Signature', 'Expires']);

const LIST_V2 = [
  'list-type',
  'prefix',
  'delimiter',
  'max-keys',
  'continuation-token',
  'start-after',
  'encoding-type',
  'fetch-owner',
];
const LIST_V1 = ['prefix', 'delimiter', 'max-keys', 'marker', 'encoding-type'];
const LIST_UPLOADS = [
  'uploads',
  'prefix',
  'delimiter',
  'key-marker',
  'upload-id-marker',
  'max-uploads',
  'encoding-type',
];

/** Parse an ISO-8601 basic timestamp (20240101T000000Z) as used by SigV4. */
const parseAmzDate = (s: string): number | undefined => {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return undefined;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
};

/**
 * Subresource names in the query, without authentication parameters and response overrides. A
 * presigned URL past `X-Amz-Date` + `X-Amz-Expires` is refused here (signatures are not checked).
 */
const subresources = (query: Query | undefined, now: () => number) => {
  const names = new Set<string>();
  if (!query) return names;
  const date = query.get('X-Amz-Date');
  const expires = query.get('X-Amz-Expires');
  if (date !== undefined && expires !== undefined) {
    const signedAt = parseAmzDate(date);
    if (signedAt === undefined || now() > signedAt + Number(expires) * 1000) {
      throw new S3Failure(403, 'AccessDenied', 'Request has expired');
    }
  }
  for (const name of query.keys()) {
    if (!isAuthParam(name) && !IGNORED_PARAMS.has(name) && !(name in RESPONSE_OVERRIDES)) names.add(name);
  }
  return names;
};

const only = (names: Set<string>, ...allowed: string[]) => {
  for (const name of names) if (!allowed.includes(name)) return false;
  return true;
};

/** Serve one request; a promise when the operation reads a body. Throws S3Failure for S3 errors. */
export const dispatch = (
  store: Store,
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  query: Query | undefined,
): Promise<void> | void => {
  const method = req.method ?? 'GET';
  const slash = path.indexOf('/', 1);
  const bucketName = decodeURIComponent(slash < 0 ? path.slice(1) : path.slice(1, slash));
  const rawKey = slash < 0 ? '' : path.slice(slash + 1);
  const key = rawKey.includes('%') ? decodeURIComponent(rawKey) : rawKey;
  const sub = subresources(query, Date.now);
  const q = query ?? new Map<string, string>();

  if (bucketName === '') {
    if (method === 'GET' && sub.size === 0) return listBuckets(store, res);
    throw notImplemented();
  }
  if (key === '' && method === 'PUT' && sub.size === 0) return createBucket(store, req, res, bucketName);
  const bucket = store.buckets.get(bucketName);
  if (!bucket) throw noSuchBucket(bucketName);

  if (key !== '') {
    if (Buffer.byteLength(key) > MAX_KEY_BYTES) {
      throw new S3Failure(400, 'KeyTooLongError', 'Your key is too long');
    }
    switch (method) {
      case 'GET':
        if (sub.size === 0) return getObject(store, req, res, bucket, key, query);
        if (only(sub, 'uploadId', 'max-parts', 'part-number-marker')) {
          return listParts(store, res, bucket, uploadOf(store, bucket, key, q), q);
        }
        break;
      case 'HEAD':
        if (sub.size === 0) return getObject(store, req, res, bucket, key, query);
        break;
      case 'PUT':
        if (sub.size === 0 && req.headers['x-amz-copy-source'] !== undefined) {
          return copyObject(store, req, res, bucket, key);
        }
        if (sub.size === 0) return putObject(store, req, res, bucket, key);
        if (sub.size === 2 && sub.has('partNumber') && sub.has('uploadId')) {
          return uploadPart(store, req, res, uploadOf(store, bucket, key, q), q);
        }
        break;
      case 'DELETE':
        if (sub.size === 0) return deleteObject(store, res, bucket, key);
        if (only(sub, 'uploadId')) return abortUpload(store, res, uploadOf(store, bucket, key, q));
        break;
      case 'POST':
        if (only(sub, 'uploads') && sub.size === 1) return initiateUpload(store, req, res, bucket, key);
        if (only(sub, 'uploadId') && sub.size === 1) {
          return completeUpload(store, req, res, bucket, uploadOf(store, bucket, key, q));
        }
        break;
    }
    throw notImplemented();
  }

  switch (method) {
    case 'HEAD':
      if (sub.size === 0) return headBucket(store, res);
      break;
    case 'GET':
      if (sub.size === 1 && sub.has('location')) return getBucketLocation(store, res);
      if (sub.size === 1 && sub.has('lifecycle')) return getLifecycle(store, res, bucket);
      if (sub.has('uploads') && only(sub, ...LIST_UPLOADS)) return listUploads(store, res, bucket, q);
      if (q.get('list-type') === '2' && only(sub, ...LIST_V2))
        return listObjects(store, res, bucket, q, true);
      if (only(sub, ...LIST_V1)) return listObjects(store, res, bucket, q, false);
      break;
    case 'PUT':
      if (sub.size === 1 && sub.has('lifecycle')) return putLifecycle(store, req, res, bucket);
      break;
    case 'DELETE':
      if (sub.size === 0) return deleteBucket(store, res, bucket);
      if (sub.size === 1 && sub.has('lifecycle')) return deleteLifecycle(store, res, bucket);
      break;
    case 'POST':
      if (sub.size === 1 && sub.has('delete')) return deleteObjects(store, req, res, bucket);
      break;
  }
  throw notImplemented();
};
