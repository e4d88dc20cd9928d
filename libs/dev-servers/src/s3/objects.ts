import { closeSync, openSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { incompleteBody, malformedXml, noSuchBucket, noSuchKey, notImplemented, S3Failure } from './failures';
import { expectedLength, readBody, send, sendXml, type Query } from './http';
import { SegmentStream, segmentsOf } from './segment-stream';
import { encodeHeader, fileNameOf, readFully, receiveFile, removeQuietly, type Entry } from './storage';
import type { Bucket, Store } from './store';
import { xmlEscape, XMLNS, xmlUnescape } from './xml';

/** Objects up to this size are answered from one synchronous read; larger ones are streamed. */
const SMALL_OBJECT = 256 * 1024;
const MAX_META_BYTES = 2048;

/** `response-*` query parameters of GetObject (presigned downloads) and the header each overrides. */
export const RESPONSE_OVERRIDES: Readonly<Record<string, string>> = {
  'response-content-type': 'content-type',
  'response-content-disposition': 'content-disposition',
  'response-content-encoding': 'content-encoding',
  'response-content-language': 'content-language',
  'response-cache-control': 'cache-control',
  'response-expires': 'expires',
};

/**
 * The content type and `x-amz-meta-*` of an object write (PutObject, a multipart upload), refusing
 * what this server does not do: aws-chunked bodies, and a part copy.
 */
export const objectHeaders = (req: IncomingMessage) => {
  // CopyObject is its own operation (copy.ts), routed in dispatch.ts before `putObject`; this refusal
  // stays for UploadPart (UploadPartCopy), so a part copy is never stored as an empty part.
  if (req.headers['x-amz-copy-source'] !== undefined) throw notImplemented();
  const sha = req.headers['x-amz-content-sha256'];
  const encoding = req.headers['content-encoding'];
  if ((typeof sha === 'string' && sha.startsWith('STREAMING-')) || encoding?.includes('aws-chunked')) {
    throw new S3Failure(501, 'NotImplemented', 'aws-chunked uploads are not supported; send a plain body');
  }
  let meta: Record<string, string> | undefined;
  let metaBytes = 0;
  for (const [name, value] of Object.entries(req.headers)) {
    if (!name.startsWith('x-amz-meta-') || typeof value !== 'string') continue;
    (meta ??= {})[name] = value;
    metaBytes += name.length - 11 + Buffer.byteLength(value);
  }
  if (metaBytes > MAX_META_BYTES) {
    throw new S3Failure(400, 'MetadataTooLarge', 'Your metadata headers exceed the maximum allowed size');
  }
  return { contentType: req.headers['content-type'] ?? 'application/octet-stream', meta };
};

/**
 * Puts a whole object's file, written at `tmp` (its header of `headBytes`, then the bytes), in place
 * of `key`: refused (and removed) when the bucket went away meanwhile. PutObject and CopyObject end here.
 */
export const commitObject = (
  store: Store,
  bucket: Bucket,
  key: string,
  tmp: string,
  object: Omit<Entry, 'file' | 'offset' | 'parts'> & { readonly headBytes: number },
) => {
  if (store.buckets.get(bucket.name) !== bucket) {
    removeQuietly(tmp);
    throw noSuchBucket(bucket.name);
  }
  const { headBytes, ...rest } = object;
  const entry: Entry = {
    ...rest,
    file: `${bucket.dir}/${fileNameOf(key)}`,
    offset: headBytes,
    parts: undefined,
  };
  store.setObject(bucket, key, entry, tmp);
};

/** PutObject: the body goes to a temporary file (after the header), renamed into place when whole. */
export const putObject = async (
  store: Store,
  req: IncomingMessage,
  res: ServerResponse,
  bucket: Bucket,
  key: string,
) => {
  const { contentType, meta } = objectHeaders(req);
  const etag = store.nextEtag();
  const mtime = Date.now();
  const head = encodeHeader({ k: key, t: contentType, e: etag, m: mtime, ...(meta ? { x: meta } : {}) });
  const tmp = store.tmpPath();
  const size = await receiveFile(req, tmp, head);
  if (size === undefined) return;
  const expected = expectedLength(req);
  if (expected !== undefined && expected !== size) {
    removeQuietly(tmp);
    throw incompleteBody();
  }
  commitObject(store, bucket, key, tmp, { headBytes: head.length, size, mtime, etag, contentType, meta });
  send(store, res, 200, { ETag: `"${etag}"` });
};

const parseRange = (header: string | undefined, size: number): [number, number] | undefined => {
  if (header === undefined) return undefined;
  const m = /^\s*bytes=(\d*)-(\d*)\s*$/.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    start = Math.max(0, size - suffix);
    end = size - 1;
    if (suffix === 0) start = size;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || end < start) {
    throw new S3Failure(416, 'InvalidRange', 'The requested range is not satisfiable', {
      ActualObjectSize: String(size),
    });
  }
  return [start, end];
};

/** GetObject and HeadObject, with a byte range and `response-*` overrides. */
export const getObject = (
  store: Store,
  req: IncomingMessage,
  res: ServerResponse,
  bucket: Bucket,
  key: string,
  query?: Query,
) => {
  const entry = bucket.objects.get(key);
  if (!entry) throw noSuchKey(bucket.name, key);
  const headers: Record<string, string | number> = {
    'Content-Type': entry.contentType,
    ETag: `"${entry.etag}"`,
    'Last-Modified': new Date(entry.mtime).toUTCString(),
    'Accept-Ranges': 'bytes',
    'x-amz-request-id': store.nextRequestId(),
  };
  if (entry.meta) Object.assign(headers, entry.meta);
  if (query) {
    for (const [param, header] of Object.entries(RESPONSE_OVERRIDES)) {
      const value = query.get(param);
      if (value !== undefined) headers[header] = value;
    }
  }
  const range = parseRange(req.headers.range, entry.size);
  const [start, end] = range ?? [0, entry.size - 1];
  const length = end - start + 1;
  headers['Content-Length'] = length;
  const status = range ? 206 : 200;
  if (range) headers['Content-Range'] = `bytes ${start}-${end}/${entry.size}`;
  if (req.method === 'HEAD') {
    res.writeHead(status, headers);
    res.end();
    return;
  }
  const gone = () => {
    // Removed behind the server's back: forget it.
    store.deleteObject(bucket, key);
    return noSuchKey(bucket.name, key);
  };
  if (!entry.parts && length <= SMALL_OBJECT) {
    let fd: number;
    try {
      fd = openSync(entry.file, 'r');
    } catch {
      throw gone();
    }
    const buf = Buffer.allocUnsafe(length);
    try {
      readFully(fd, buf, entry.offset + start);
    } finally {
      closeSync(fd);
    }
    res.writeHead(status, headers);
    res.end(buf);
    return;
  }
  let stream: SegmentStream;
  try {
    stream = SegmentStream.open(segmentsOf(entry, start, length));
  } catch {
    throw gone();
  }
  res.writeHead(status, headers);
  pipeline(stream, res).catch(() => undefined);
};

/** DeleteObject: gone or never there, the answer is the same. */
export const deleteObject = (store: Store, res: ServerResponse, bucket: Bucket, key: string) => {
  store.deleteObject(bucket, key);
  send(store, res, 204, {});
};

/** DeleteObjects (POST ?delete): several keys in one XML body. */
export const deleteObjects = async (
  store: Store,
  req: IncomingMessage,
  res: ServerResponse,
  bucket: Bucket,
) => {
  const xml = await readBody(req);
  if (!/<Delete[\s>]/.test(xml)) throw malformedXml();
  const quiet = /<Quiet>\s*true\s*<\/Quiet>/.test(xml);
  let out = `<DeleteResult xmlns="${XMLNS}">`;
  for (const [, body = ''] of xml.matchAll(/<Object>([\s\S]*?)<\/Object>/g)) {
    const key = xmlUnescape(/<Key>([^<]*)<\/Key>/.exec(body)?.[1] ?? '');
    if (key === '') continue;
    store.deleteObject(bucket, key);
    if (!quiet) out += `<Deleted><Key>${xmlEscape(key)}</Key></Deleted>`;
  }
  sendXml(store, res, `${out}</DeleteResult>`);
};
