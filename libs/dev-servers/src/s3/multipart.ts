import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { incompleteBody, malformedXml, noSuchBucket, noSuchUpload, S3Failure } from './failures';
import { expectedLength, readBody, send, sendXml, type Query } from './http';
import { objectHeaders } from './objects';
import {
  encodeHeader,
  fileNameOf,
  partFileOf,
  receiveFile,
  removeQuietly,
  type Entry,
  type PartFile,
} from './storage';
import type { Bucket, Part, Store, Upload } from './store';
import { stripQuotes, urlEncodeKey, xmlEscape, XMLNS } from './xml';

/**
 * Multipart uploads: parts wait under `.uploads/<id>/`; completing renames them beside a header-only
 * object file (no copying). Uploads in progress do not survive a restart.
 */

const MIN_PART = 5 * 1024 * 1024;

/** The upload `?uploadId=` names, if it is one of this bucket and key. */
export const uploadOf = (store: Store, bucket: Bucket, key: string, query: Query) => {
  const id = query.get('uploadId') ?? '';
  const upload = store.uploads.get(id);
  if (!upload || upload.bucket !== bucket.name || upload.key !== key) throw noSuchUpload(id);
  return upload;
};

export const initiateUpload = (
  store: Store,
  req: IncomingMessage,
  res: ServerResponse,
  bucket: Bucket,
  key: string,
) => {
  const { contentType, meta } = objectHeaders(req);
  const id = `u${randomBytes(12).toString('hex')}`;
  const dir = join(store.uploadsDir, id);
  mkdirSync(dir);
  store.uploads.set(id, {
    id,
    bucket: bucket.name,
    key,
    dir,
    initiated: Date.now(),
    contentType,
    meta,
    parts: new Map(),
  });
  sendXml(
    store,
    res,
    `<InitiateMultipartUploadResult xmlns="${XMLNS}"><Bucket>${xmlEscape(bucket.name)}</Bucket>` +
      `<Key>${xmlEscape(key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
  );
};

export const uploadPart = async (
  store: Store,
  req: IncomingMessage,
  res: ServerResponse,
  upload: Upload,
  query: Query,
) => {
  const number = Number(query.get('partNumber'));
  if (!Number.isInteger(number) || number < 1 || number > 10_000) {
    throw new S3Failure(400, 'InvalidArgument', 'Part number must be an integer between 1 and 10000');
  }
  objectHeaders(req);
  const tmp = store.tmpPath();
  const size = await receiveFile(req, tmp, undefined);
  if (size === undefined) return;
  const expected = expectedLength(req);
  if (expected !== undefined && expected !== size) {
    removeQuietly(tmp);
    throw incompleteBody();
  }
  if (store.uploads.get(upload.id) !== upload) {
    removeQuietly(tmp);
    throw noSuchUpload(upload.id);
  }
  renameSync(tmp, join(upload.dir, String(number)));
  const etag = store.nextEtag();
  upload.parts.set(number, { etag, size, mtime: Date.now() });
  send(store, res, 200, { ETag: `"${etag}"` });
};

/** The parts a CompleteMultipartUpload body chooses, checked against those received. */
const chosenParts = (xml: string, upload: Upload) => {
  if (!/<CompleteMultipartUpload[\s>]/.test(xml)) throw malformedXml();
  const chosen: { number: number; part: Part }[] = [];
  for (const [, body = ''] of xml.matchAll(/<Part>([\s\S]*?)<\/Part>/g)) {
    const number = Number(/<PartNumber>\s*(\d+)\s*<\/PartNumber>/.exec(body)?.[1]);
    const etag = /<ETag>([^<]*)<\/ETag>/.exec(body)?.[1];
    const part = upload.parts.get(number);
    if (!part || etag === undefined || stripQuotes(etag) !== part.etag) {
      throw new S3Failure(400, 'InvalidPart', 'One or more of the specified parts could not be found', {
        UploadId: upload.id,
        PartNumber: String(number),
      });
    }
    const previous = chosen.at(-1);
    if (previous && previous.number >= number) {
      throw new S3Failure(400, 'InvalidPartOrder', 'The list of parts was not in ascending order');
    }
    chosen.push({ number, part });
  }
  if (chosen.length === 0) throw malformedXml('The XML you provided lists no parts');
  for (const { number, part } of chosen.slice(0, -1)) {
    if (part.size < MIN_PART) {
      throw new S3Failure(400, 'EntityTooSmall', 'Your proposed upload is smaller than the minimum allowed', {
        PartNumber: String(number),
      });
    }
  }
  return chosen;
};

export const completeUpload = async (
  store: Store,
  req: IncomingMessage,
  res: ServerResponse,
  bucket: Bucket,
  upload: Upload,
) => {
  const chosen = chosenParts(await readBody(req), upload);
  // From here on everything is synchronous, so no part upload, abort or second complete interleaves.
  if (store.uploads.get(upload.id) !== upload) throw noSuchUpload(upload.id);
  if (store.buckets.get(bucket.name) !== bucket) throw noSuchBucket(bucket.name);
  const etag = `${store.nextEtag()}-${chosen.length}`;
  const file = `${bucket.dir}/${fileNameOf(upload.key)}`;
  // The parts become the object's files as they are (renames, no copying): a header-only file
  // lists their sizes, and its rename is the commit.
  const parts = chosen.map(({ part }, i) => ({ file: partFileOf(file, etag, i), size: part.size }));
  const head = encodeHeader({
    k: upload.key,
    t: upload.contentType,
    e: etag,
    m: upload.initiated,
    ...(upload.meta ? { x: upload.meta } : {}),
    p: parts.map((part) => part.size),
  });
  const tmp = store.tmpPath();
  writeFileSync(tmp, head);
  chosen.forEach(({ number }, i) => renameSync(`${upload.dir}/${number}`, (parts[i] as PartFile).file));
  store.uploads.delete(upload.id);
  rmSync(upload.dir, { recursive: true, force: true });
  const entry: Entry = {
    file,
    offset: head.length,
    size: parts.reduce((sum, part) => sum + part.size, 0),
    mtime: upload.initiated,
    etag,
    contentType: upload.contentType,
    meta: upload.meta,
    parts,
  };
  store.setObject(bucket, upload.key, entry, tmp);
  const host = req.headers.host ?? `127.0.0.1:${req.socket.localPort}`;
  sendXml(
    store,
    res,
    `<CompleteMultipartUploadResult xmlns="${XMLNS}">` +
      `<Location>http://${xmlEscape(host)}/${xmlEscape(bucket.name)}/${xmlEscape(urlEncodeKey(upload.key))}</Location>` +
      `<Bucket>${xmlEscape(bucket.name)}</Bucket><Key>${xmlEscape(upload.key)}</Key>` +
      `<ETag>&quot;${etag}&quot;</ETag></CompleteMultipartUploadResult>`,
  );
};

/** Drop an upload and the parts received so far. */
export const discardUpload = (store: Store, upload: Upload) => {
  store.uploads.delete(upload.id);
  rmSync(upload.dir, { recursive: true, force: true });
};

export const abortUpload = (store: Store, res: ServerResponse, upload: Upload) => {
  discardUpload(store, upload);
  send(store, res, 204, {});
};

export const listParts = (
  store: Store,
  res: ServerResponse,
  bucket: Bucket,
  upload: Upload,
  query: Query,
) => {
  const marker = Number(query.get('part-number-marker') ?? 0);
  const max = Math.min(Number(query.get('max-parts') ?? 1000), 1000);
  const numbers = [...upload.parts.keys()].filter((n) => n > marker).sort((a, b) => a - b);
  const page = numbers.slice(0, max);
  const truncated = numbers.length > page.length;
  let xml =
    `<ListPartsResult xmlns="${XMLNS}"><Bucket>${xmlEscape(bucket.name)}</Bucket>` +
    `<Key>${xmlEscape(upload.key)}</Key><UploadId>${upload.id}</UploadId>` +
    `<PartNumberMarker>${marker}</PartNumberMarker>` +
    `<NextPartNumberMarker>${page.at(-1) ?? marker}</NextPartNumberMarker>` +
    `<MaxParts>${max}</MaxParts><IsTruncated>${truncated}</IsTruncated>`;
  for (const n of page) {
    const part = upload.parts.get(n);
    if (!part) continue;
    xml +=
      `<Part><PartNumber>${n}</PartNumber><LastModified>${new Date(part.mtime).toISOString()}</LastModified>` +
      `<ETag>&quot;${part.etag}&quot;</ETag><Size>${part.size}</Size></Part>`;
  }
  sendXml(store, res, `${xml}</ListPartsResult>`);
};

export const listUploads = (store: Store, res: ServerResponse, bucket: Bucket, query: Query) => {
  const prefix = query.get('prefix') ?? '';
  const found = [...store.uploads.values()]
    .filter((u) => u.bucket === bucket.name && u.key.startsWith(prefix))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.initiated - b.initiated));
  let xml =
    `<ListMultipartUploadsResult xmlns="${XMLNS}"><Bucket>${xmlEscape(bucket.name)}</Bucket>` +
    `<KeyMarker></KeyMarker><UploadIdMarker></UploadIdMarker><Prefix>${xmlEscape(prefix)}</Prefix>` +
    `<MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated>`;
  for (const u of found) {
    xml +=
      `<Upload><Key>${xmlEscape(u.key)}</Key><UploadId>${u.id}</UploadId>` +
      `<StorageClass>STANDARD</StorageClass><Initiated>${new Date(u.initiated).toISOString()}</Initiated></Upload>`;
  }
  sendXml(store, res, `${xml}</ListMultipartUploadsResult>`);
};
