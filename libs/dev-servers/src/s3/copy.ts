import { closeSync, openSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { noSuchBucket, noSuchKey, notImplemented, S3Failure } from './failures';
import { commitObject } from './objects';
import { sendXml } from './http';
import { SegmentStream, segmentsOf } from './segment-stream';
import { encodeHeader, removeQuietly, writeFully } from './storage';
import type { Bucket, Store } from './store';
import { XMLNS } from './xml';

/**
 * CopyObject (a PUT with `x-amz-copy-source: /<bucket>/<key>`, URI-encoded): the source's bytes
 * become a new object with its own ETag and time, with the source's content type and metadata
 * (`x-amz-metadata-directive: COPY`, the default) or the request's (`REPLACE`). The source's files
 * are opened before anything is written, so a source replaced or deleted meanwhile is still copied
 * whole. Answers CopyObjectResult; a missing source is 404 NoSuchKey. Conditional and ranged copies
 * are not implemented (501).
 */
export const copyObject = async (
  store: Store,
  req: IncomingMessage,
  res: ServerResponse,
  bucket: Bucket,
  key: string,
) => {
  const header = String(req.headers['x-amz-copy-source']);
  const directive = req.headers['x-amz-metadata-directive'] ?? 'COPY';
  const unsupported = Object.keys(req.headers).some(
    (name) => name.startsWith('x-amz-copy-source-') || name === 'x-amz-tagging-directive',
  );
  if ((directive !== 'COPY' && directive !== 'REPLACE') || unsupported) throw notImplemented();
  const path = decodeURIComponent(header.split('?')[0] ?? '').replace(/^\//, '');
  const slash = path.indexOf('/');
  const sourceKey = slash < 0 ? '' : path.slice(slash + 1);
  if (slash < 1 || sourceKey === '') {
    throw new S3Failure(400, 'InvalidArgument', 'Copy Source must mention the source bucket and key');
  }
  const sourceBucket = store.buckets.get(path.slice(0, slash));
  if (!sourceBucket) throw noSuchBucket(path.slice(0, slash));
  if (sourceBucket === bucket && sourceKey === key && directive === 'COPY') {
    throw new S3Failure(
      400,
      'InvalidRequest',
      'This copy request is illegal because it is trying to copy an object to itself without changing the metadata',
    );
  }
  const source = sourceBucket.objects.get(sourceKey);
  if (!source) throw noSuchKey(sourceBucket.name, sourceKey);
  let stream: SegmentStream;
  try {
    stream = SegmentStream.open(segmentsOf(source, 0, source.size));
  } catch {
    throw noSuchKey(sourceBucket.name, sourceKey);
  }
  req.resume();
  const etag = store.nextEtag();
  const mtime = Date.now();
  let replaced: Record<string, string> | undefined;
  for (const [name, value] of Object.entries(req.headers)) {
    if (name.startsWith('x-amz-meta-') && typeof value === 'string') (replaced ??= {})[name] = value;
  }
  const { contentType, meta } =
    directive === 'COPY'
      ? source
      : { contentType: req.headers['content-type'] ?? 'application/octet-stream', meta: replaced };
  const head = encodeHeader({ k: key, t: contentType, e: etag, m: mtime, ...(meta ? { x: meta } : {}) });
  const tmp = store.tmpPath();
  const fd = openSync(tmp, 'w');
  try {
    writeFully(fd, head);
    for await (const chunk of stream) writeFully(fd, chunk as Buffer);
  } catch (err) {
    stream.destroy();
    closeSync(fd);
    removeQuietly(tmp);
    throw err;
  }
  closeSync(fd);
  commitObject(store, bucket, key, tmp, {
    headBytes: head.length,
    size: source.size,
    mtime,
    etag,
    contentType,
    meta,
  });
  sendXml(
    store,
    res,
    `<CopyObjectResult xmlns="${XMLNS}"><LastModified>${new Date(mtime).toISOString()}</LastModified>` +
      `<ETag>&quot;${etag}&quot;</ETag></CopyObjectResult>`,
  );
};
