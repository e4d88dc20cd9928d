import { hash, randomBytes } from 'node:crypto';
import {
  closeSync,
  fstatSync,
  mkdirSync,
  openSync,
  read,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { pipeline } from 'node:stream/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';

/**
 * A small S3-protocol server for development, tests and benchmarks: the subset of the S3 API that the
 * `minio` client and presigned URLs use, served by node:http with objects as files on disk.
 *
 * What it does: buckets (create, head, delete, location, list), objects (put, get with ranges and
 * `response-*` overrides, head, delete, ListObjectsV2 and V1 with prefix, delimiter and pagination,
 * multi-delete, copy within and across buckets), multipart uploads (initiate, part, complete, abort, list uploads and parts), bucket
 * lifecycle (stored; `Expiration.Days` rules for a prefix are honoured by a periodic sweep), expiry of
 * presigned URLs (`X-Amz-Date` + `X-Amz-Expires`), S3 XML errors.
 *
 * What it leaves out, on purpose: credentials and signatures are not checked (any key is accepted);
 * ETags are unique tokens, not MD5 digests, and Content-MD5 is not verified; no versioning, ACLs,
 * policies, tagging, part copies, copies that replace metadata or conditional requests (501
 * NotImplemented, so nothing is silently misread as a plain object write); multipart uploads in
 * progress do not survive a restart.
 *
 * Storage: `<directory>/<bucket>/<sha1 of key>`, each file a small header (key, content type, ETag,
 * time, user metadata) followed by the bytes, so that the folder alone rebuilds the index at start.
 * Bodies are streamed to a temporary file and renamed into place when complete, so a reader never
 * sees half an object and an interrupted upload leaves nothing behind. A completed multipart upload
 * is not copied: its parts are renamed beside a header-only file (`<sha1>.<etag>.<i>`) and read in
 * turn. The index (keys, sizes, types) lives in memory; every rename or unlink of an object file and
 * its index update happen in the same synchronous step, which is what lets a read trust the index
 * without re-reading the header.
 */

export interface S3ServerOptions {
  /** Folder that holds the buckets; created when missing and re-read at start. */
  directory: string;
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Listening address; 127.0.0.1 by default. */
  host?: string;
  /** Region reported by GET ?location; us-east-1 by default. */
  region?: string;
  /** How often lifecycle expiration rules are applied; one hour by default. */
  lifecycleSweepMs?: number;
}

export interface S3Server {
  readonly endpoint: string;
  readonly port: number;
  readonly region: string;
  /** Apply the buckets' lifecycle expiration rules as of `now`; returns how many objects were deleted. */
  sweepExpired(now?: number): number;
  /** Close the listener and every connection; the files stay. */
  stop(): Promise<void>;
}

interface PartFile {
  readonly file: string;
  readonly size: number;
}

interface Entry {
  readonly file: string;
  /** Where the bytes start in the file (after the header). */
  readonly offset: number;
  readonly size: number;
  readonly mtime: number;
  readonly etag: string;
  readonly contentType: string;
  readonly meta: Readonly<Record<string, string>> | undefined;
  /** A completed multipart upload keeps its parts as they came, in order, after a header-only file. */
  readonly parts: readonly PartFile[] | undefined;
}

interface LifecycleRule {
  readonly prefix: string;
  readonly days: number;
}

interface Bucket {
  readonly name: string;
  readonly dir: string;
  readonly created: number;
  readonly objects: Map<string, Entry>;
  /** Keys in listing order; dropped when a key appears or disappears, rebuilt by the next listing. */
  sorted: string[] | undefined;
  lifecycle: { xml: string; rules: LifecycleRule[] } | undefined;
}

interface Part {
  readonly etag: string;
  readonly size: number;
  readonly mtime: number;
}

interface Upload {
  readonly id: string;
  readonly bucket: string;
  readonly key: string;
  readonly dir: string;
  readonly initiated: number;
  readonly contentType: string;
  readonly meta: Readonly<Record<string, string>> | undefined;
  readonly parts: Map<number, Part>;
}

interface StoredHeader {
  k: string;
  t: string;
  e: string;
  m: number;
  x?: Record<string, string>;
  /** Sizes of the part files of a multipart object, in order. */
  p?: number[];
}

type Query = Map<string, string>;

class S3Failure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Readonly<Record<string, string>> = {},
  ) {
    super(message);
  }
}

const XMLNS = 'http://s3.amazonaws.com/doc/2006-03-01/';
const XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>\n';
const HEADER_MAGIC = 0x45534f31; // "ESO1"
const UPLOADS_DIR = '.uploads';
const TMP_DIR = '.tmp';
const LIFECYCLE_FILE = '.lifecycle.xml';
const OBJECT_FILE = /^[0-9a-f]{40}$/;
const PART_FILE = /^[0-9a-f]{40}\./;
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
/** Objects up to this size are answered from one synchronous read; larger ones are streamed. */
const SMALL_OBJECT = 256 * 1024;
/** XML request bodies (bucket configuration, lifecycle, complete, multi-delete) are small. */
const MAX_XML_BODY = 2 * 1024 * 1024;
const MIN_PART = 5 * 1024 * 1024;
const MAX_KEY_BYTES = 1024;
const MAX_META_BYTES = 2048;
const DAY_MS = 86_400_000;
const COPY_CHUNK = 1024 * 1024;

/** Query parameters of authentication and presigning, which are not subresources. */
const isAuthParam = (name: string) =>
  name.length > 6 && (name.startsWith('X-Amz-') || name.toLowerCase().startsWith('x-amz-'));
const IGNORED_PARAMS = new Set(['x-id', 'AWSAccessKeyId', 'Signature', 'Expires']);

const RESPONSE_OVERRIDES: Readonly<Record<string, string>> = {
  'response-content-type': 'content-type',
  'response-content-disposition': 'content-disposition',
  'response-content-encoding': 'content-encoding',
  'response-content-language': 'content-language',
  'response-cache-control': 'cache-control',
  'response-expires': 'expires',
};

const xmlEscape = (s: string) =>
  s.replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&apos;',
  );

const xmlUnescape = (s: string) =>
  s.replace(
    /&(amp|lt|gt|quot|apos|#(\d+)|#x([0-9a-fA-F]+));/g,
    (_, name: string, dec?: string, hex?: string) => {
      if (dec) return String.fromCodePoint(Number(dec));
      if (hex) return String.fromCodePoint(parseInt(hex, 16));
      return { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }[name] ?? '';
    },
  );

/**
 * Keys in listings with `encoding-type=url`. Clients decode them with decodeURIComponent after an XML
 * parser that turns number-like text into numbers and trims spaces, so a leading digit, sign or dot is
 * escaped too: "007" must come back as "007", not 7.
 */
const urlEncodeKey = (key: string) => {
  const encoded = encodeURIComponent(key).replace(/%2F/g, '/');
  const first = encoded.charCodeAt(0);
  return (first >= 48 && first <= 57) || first === 43 || first === 45 || first === 46
    ? `%${first.toString(16).toUpperCase()}${encoded.slice(1)}`
    : encoded;
};

const stripQuotes = (etag: string) => xmlUnescape(etag.trim()).replace(/^"|"$/g, '');

const fileNameOf = (key: string) => hash('sha1', key, 'hex');

const encodeHeader = (h: StoredHeader): Buffer => {
  const json = Buffer.from(JSON.stringify(h));
  const buf = Buffer.allocUnsafe(8 + json.length);
  buf.writeUInt32BE(HEADER_MAGIC, 0);
  buf.writeUInt32BE(json.length, 4);
  json.copy(buf, 8);
  return buf;
};

const readFully = (fd: number, buf: Buffer, position: number) => {
  let done = 0;
  while (done < buf.length) {
    const n = readSync(fd, buf, done, buf.length - done, position + done);
    if (n === 0) throw new Error('object file is shorter than its index says');
    done += n;
  }
};

const writeFully = (fd: number, buf: Buffer) => {
  let done = 0;
  while (done < buf.length) done += writeSync(fd, buf, done);
};

const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

const removeQuietly = (path: string) => {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
};

/** Part files of a multipart object sit beside its header file, named after it and its ETag. */
const partFileOf = (file: string, etag: string, index: number) => `${file}.${etag}.${index}`;

/** A byte range of one file. */
interface Segment {
  readonly file: string;
  position: number;
  remaining: number;
}

/**
 * Reads byte ranges of files one after another. Every file is opened before the first byte is sent,
 * so an object replaced or deleted meanwhile is still read whole (open files outlive their names).
 */
class SegmentStream extends Readable {
  private index = 0;
  private reading = false;
  private closeWhenIdle: (() => void) | undefined;

  private constructor(private readonly segments: (Segment & { fd: number })[]) {
    super({ highWaterMark: COPY_CHUNK });
  }

  /** Open every segment's file; throws (with nothing left open) when one is missing. */
  static open(segments: Segment[]): SegmentStream {
    const opened: (Segment & { fd: number })[] = [];
    try {
      for (const segment of segments) opened.push({ ...segment, fd: openSync(segment.file, 'r') });
    } catch (err) {
      for (const segment of opened) closeSync(segment.fd);
      throw err;
    }
    return new SegmentStream(opened);
  }

  override _read(): void {
    let segment = this.segments[this.index];
    while (segment && segment.remaining === 0) segment = this.segments[++this.index];
    if (!segment) {
      this.push(null);
      return;
    }
    const current = segment;
    const buf = Buffer.allocUnsafe(Math.min(COPY_CHUNK, current.remaining));
    this.reading = true;
    read(current.fd, buf, 0, buf.length, current.position, (err, bytesRead) => {
      this.reading = false;
      if (this.closeWhenIdle) {
        this.closeWhenIdle();
        return;
      }
      if (err) {
        this.destroy(err);
        return;
      }
      if (bytesRead === 0) {
        this.destroy(new Error('object file is shorter than its index says'));
        return;
      }
      current.position += bytesRead;
      current.remaining -= bytesRead;
      this.push(bytesRead === buf.length ? buf : buf.subarray(0, bytesRead));
    });
  }

  override _destroy(err: Error | null, callback: (err?: Error | null) => void): void {
    // Closing a descriptor while the thread pool still reads from it could hit a reused number.
    const close = () => {
      for (const segment of this.segments) closeSync(segment.fd);
      callback(err);
    };
    if (this.reading) this.closeWhenIdle = close;
    else close();
  }
}

/** The entry of an object file written by this server, or undefined for anything else. */
const readObjectFile = (file: string): { key: string; entry: Entry } | undefined => {
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const size = fstatSync(fd).size;
    if (size < 8) return undefined;
    const head = Buffer.allocUnsafe(8);
    readFully(fd, head, 0);
    const length = head.readUInt32BE(4);
    if (head.readUInt32BE(0) !== HEADER_MAGIC || 8 + length > size) return undefined;
    const json = Buffer.allocUnsafe(length);
    readFully(fd, json, 8);
    const h = JSON.parse(json.toString()) as StoredHeader;
    if (typeof h.k !== 'string' || typeof h.t !== 'string' || typeof h.e !== 'string') return undefined;
    const parts = h.p?.map((partSize, i) => ({ file: partFileOf(file, h.e, i), size: partSize }));
    // A multipart object whose part files are not all there (a crash mid-way) is not an object.
    if (parts?.some((part) => statSync(part.file, { throwIfNoEntry: false })?.size !== part.size))
      return undefined;
    return {
      key: h.k,
      entry: {
        file,
        offset: 8 + length,
        size: parts ? parts.reduce((sum, part) => sum + part.size, 0) : size - 8 - length,
        mtime: h.m,
        etag: h.e,
        contentType: h.t,
        meta: h.x,
        parts,
      },
    };
  } catch {
    return undefined;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
};

const parseLifecycle = (xml: string): LifecycleRule[] | undefined => {
  if (!/<LifecycleConfiguration[\s>]/.test(xml)) return undefined;
  const rules: LifecycleRule[] = [];
  for (const [, body = ''] of xml.matchAll(/<Rule>([\s\S]*?)<\/Rule>/g)) {
    if (/<Status>\s*Enabled\s*<\/Status>/.exec(body) === null) continue;
    const days = /<Expiration>[\s\S]*?<Days>\s*(\d+)\s*<\/Days>[\s\S]*?<\/Expiration>/.exec(body)?.[1];
    if (days === undefined) continue;
    // Filter/Prefix, Filter/And/Prefix or the legacy Rule/Prefix: the first Prefix element is the one.
    const prefix = /<Prefix>([^<]*)<\/Prefix>/.exec(body)?.[1] ?? '';
    rules.push({ prefix: xmlUnescape(prefix), days: Number(days) });
  }
  return rules;
};

/** Parse an ISO-8601 basic timestamp (20240101T000000Z) as used by SigV4. */
const parseAmzDate = (s: string): number | undefined => {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return undefined;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
};

const parseQuery = (search: string): Query => {
  const query: Query = new Map();
  for (const [name, value] of new URLSearchParams(search)) query.set(name, value);
  return query;
};

const lowerBound = (sorted: readonly string[], value: string) => {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
};

interface ListPage {
  keys: string[];
  prefixes: string[];
  truncated: boolean;
  /** The last key or common prefix returned, where the next page starts. */
  last: { value: string; isPrefix: boolean } | undefined;
}

/** One page of keys under `prefix`, starting after `after` (skipping the keys under it when a prefix). */
const listPage = (
  sorted: readonly string[],
  prefix: string,
  delimiter: string,
  max: number,
  after: { value: string; isPrefix: boolean } | undefined,
): ListPage => {
  const page: ListPage = { keys: [], prefixes: [], truncated: false, last: undefined };
  let i = lowerBound(sorted, prefix);
  if (after) i = Math.max(i, lowerBound(sorted, after.value));
  let count = 0;
  while (i < sorted.length) {
    const key = sorted[i] as string;
    if (!key.startsWith(prefix)) break;
    if (after && (key === after.value || (after.isPrefix && key.startsWith(after.value)))) {
      i++;
      continue;
    }
    const cut = delimiter ? key.indexOf(delimiter, prefix.length) : -1;
    if (count === max) {
      page.truncated = true;
      break;
    }
    count++;
    if (cut >= 0) {
      const common = key.slice(0, cut + delimiter.length);
      page.prefixes.push(common);
      page.last = { value: common, isPrefix: true };
      while (i < sorted.length && (sorted[i] as string).startsWith(common)) i++;
    } else {
      page.keys.push(key);
      page.last = { value: key, isPrefix: false };
      i++;
    }
  }
  return page;
};

const encodeToken = (last: { value: string; isPrefix: boolean }) =>
  `t${Buffer.from((last.isPrefix ? 'p' : 'k') + last.value).toString('base64url')}`;

const decodeToken = (token: string): { value: string; isPrefix: boolean } => {
  const raw = token.startsWith('t') ? Buffer.from(token.slice(1), 'base64url').toString() : '';
  if (raw[0] !== 'p' && raw[0] !== 'k')
    throw new S3Failure(400, 'InvalidArgument', 'Invalid continuation token');
  return { value: raw.slice(1), isPrefix: raw[0] === 'p' };
};

/** Start the S3-protocol server on `options.directory`; resolves once it listens. */
export const startS3Server = async (options: S3ServerOptions): Promise<S3Server> => {
  const root = options.directory;
  const region = options.region ?? 'us-east-1';
  const tmpDir = join(root, TMP_DIR);
  const uploadsDir = join(root, UPLOADS_DIR);
  mkdirSync(root, { recursive: true });
  // Leftovers of a previous run: half-written bodies and unfinished multipart uploads.
  rmSync(tmpDir, { recursive: true, force: true });
  rmSync(uploadsDir, { recursive: true, force: true });
  mkdirSync(tmpDir);
  mkdirSync(uploadsDir);

  const buckets = new Map<string, Bucket>();
  const uploads = new Map<string, Upload>();
  const tokenPrefix = randomBytes(8).toString('hex');
  let counter = 0;
  /** Unique per object version: 32 hex digits like an MD5 ETag, without reading the bytes. */
  const nextEtag = () => tokenPrefix + (counter++).toString(16).padStart(16, '0');
  const tmpPath = () => `${tmpDir}/${tokenPrefix}${(counter++).toString(36)}`;

  for (const dirent of readdirSync(root, { withFileTypes: true })) {
    if (!dirent.isDirectory() || !BUCKET_NAME.test(dirent.name)) continue;
    const dir = join(root, dirent.name);
    const bucket: Bucket = {
      name: dirent.name,
      dir,
      created: statSync(dir).mtimeMs,
      objects: new Map(),
      sorted: undefined,
      lifecycle: undefined,
    };
    const names = readdirSync(dir);
    for (const name of names) {
      if (name === LIFECYCLE_FILE) {
        const xml = readFileSync(join(dir, name), 'utf8');
        const rules = parseLifecycle(xml);
        if (rules) bucket.lifecycle = { xml, rules };
      } else if (OBJECT_FILE.test(name)) {
        const found = readObjectFile(join(dir, name));
        if (found && fileNameOf(found.key) === name) bucket.objects.set(found.key, found.entry);
      }
    }
    // Part files that no object names: left by a crash between moving parts and committing.
    const used = new Set(
      [...bucket.objects.values()].flatMap((entry) => entry.parts?.map((p) => p.file) ?? []),
    );
    for (const name of names) {
      if (PART_FILE.test(name) && !used.has(join(dir, name))) removeQuietly(join(dir, name));
    }
    buckets.set(bucket.name, bucket);
  }

  const sortedKeys = (bucket: Bucket) => (bucket.sorted ??= [...bucket.objects.keys()].sort());

  /** Commit: the rename makes the new version visible on disk, the index follows in the same step. */
  const setObject = (bucket: Bucket, key: string, entry: Entry, tmp: string) => {
    renameSync(tmp, entry.file);
    const previous = bucket.objects.get(key);
    if (!previous) bucket.sorted = undefined;
    bucket.objects.set(key, entry);
    for (const part of previous?.parts ?? []) removeQuietly(part.file);
  };

  const deleteObject = (bucket: Bucket, key: string) => {
    const entry = bucket.objects.get(key);
    if (!entry) return;
    removeQuietly(entry.file);
    for (const part of entry.parts ?? []) removeQuietly(part.file);
    bucket.objects.delete(key);
    bucket.sorted = undefined;
  };

  const sweepExpired = (now = Date.now()) => {
    let deleted = 0;
    for (const bucket of buckets.values()) {
      for (const rule of bucket.lifecycle?.rules ?? []) {
        const cutoff = now - rule.days * DAY_MS;
        for (const [key, entry] of bucket.objects) {
          if (entry.mtime <= cutoff && key.startsWith(rule.prefix)) {
            deleteObject(bucket, key);
            deleted++;
          }
        }
      }
    }
    return deleted;
  };

  // ---- responses -------------------------------------------------------------------------------

  const send = (
    res: ServerResponse,
    status: number,
    headers: Record<string, string | number>,
    body?: string,
  ) => {
    const buf = body === undefined ? undefined : Buffer.from(body);
    headers['Content-Length'] = buf ? buf.length : 0;
    headers['x-amz-request-id'] = (counter++).toString(16);
    res.writeHead(status, headers);
    res.end(buf);
  };

  const sendXml = (res: ServerResponse, xml: string, status = 200) =>
    send(res, status, { 'Content-Type': 'application/xml' }, XML_DECL + xml);

  const sendFailure = (req: IncomingMessage, res: ServerResponse, failure: S3Failure, resource: string) => {
    if (req.method === 'HEAD') {
      send(res, failure.status, {});
      return;
    }
    let extra = '';
    for (const [name, value] of Object.entries(failure.extra))
      extra += `<${name}>${xmlEscape(value)}</${name}>`;
    sendXml(
      res,
      `<Error><Code>${failure.code}</Code><Message>${xmlEscape(failure.message)}</Message>${extra}` +
        `<Resource>${xmlEscape(resource)}</Resource><RequestId>${counter.toString(16)}</RequestId></Error>`,
      failure.status,
    );
  };

  const noSuchBucket = (name: string) =>
    new S3Failure(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: name });
  const noSuchKey = (bucket: string, key: string) =>
    new S3Failure(404, 'NoSuchKey', 'The specified key does not exist.', { BucketName: bucket, Key: key });
  const notImplemented = () =>
    new S3Failure(
      501,
      'NotImplemented',
      'A header or query you provided implies functionality that is not implemented',
    );
  const noSuchUpload = (id: string) =>
    new S3Failure(404, 'NoSuchUpload', 'The specified multipart upload does not exist.', { UploadId: id });

  // ---- request bodies --------------------------------------------------------------------------

  /**
   * Stream the body into `path` (after `head`), with synchronous writes: for page-cache writes they
   * cost less than the thread-pool round trips of asynchronous ones. Resolves to the byte count, or
   * undefined (and no file) when the client went away before the end.
   */
  const receiveFile = (req: IncomingMessage, path: string, head: Buffer | undefined) =>
    new Promise<number | undefined>((resolve, reject) => {
      let fd: number;
      try {
        fd = openSync(path, 'w');
      } catch (err) {
        reject(asError(err));
        return;
      }
      let bytes = 0;
      let settled = false;
      const abandon = (err?: Error) => {
        if (settled) return;
        settled = true;
        closeSync(fd);
        removeQuietly(path);
        if (err) reject(err);
        else resolve(undefined);
      };
      if (head) {
        try {
          writeFully(fd, head);
        } catch (err) {
          abandon(asError(err));
          return;
        }
      }
      req.on('data', (chunk: Buffer) => {
        if (settled) return;
        try {
          writeFully(fd, chunk);
          bytes += chunk.length;
        } catch (err) {
          abandon(asError(err));
        }
      });
      req.on('end', () => {
        if (settled) return;
        settled = true;
        try {
          closeSync(fd);
        } catch (err) {
          removeQuietly(path);
          reject(asError(err));
          return;
        }
        resolve(bytes);
      });
      req.on('error', () => abandon());
      req.on('close', () => abandon());
    });

  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      req.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_XML_BODY) chunks.push(chunk);
      });
      req.on('end', () => {
        if (size > MAX_XML_BODY)
          reject(new S3Failure(400, 'MaxMessageLengthExceeded', 'Request body too large'));
        else resolve(Buffer.concat(chunks).toString('utf8'));
      });
      req.on('error', reject);
      // After 'end' this is a no-op; before it, the client went away mid-body.
      req.on('close', () => reject(new Error('request closed before its body ended')));
    });

  const hasBody = (req: IncomingMessage) =>
    req.headers['transfer-encoding'] !== undefined ||
    (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

  const objectHeaders = (req: IncomingMessage) => {
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

  const expectedLength = (req: IncomingMessage) => {
    const header = req.headers['content-length'];
    return header === undefined ? undefined : Number(header);
  };

  // ---- object operations -----------------------------------------------------------------------

  const putObject = async (req: IncomingMessage, res: ServerResponse, bucket: Bucket, key: string) => {
    const { contentType, meta } = objectHeaders(req);
    const etag = nextEtag();
    const mtime = Date.now();
    const head = encodeHeader({ k: key, t: contentType, e: etag, m: mtime, ...(meta ? { x: meta } : {}) });
    const tmp = tmpPath();
    const size = await receiveFile(req, tmp, head);
    if (size === undefined) return;
    const expected = expectedLength(req);
    if (expected !== undefined && expected !== size) {
      removeQuietly(tmp);
      throw new S3Failure(400, 'IncompleteBody', 'You did not provide the number of bytes specified');
    }
    if (buckets.get(bucket.name) !== bucket) {
      removeQuietly(tmp);
      throw noSuchBucket(bucket.name);
    }
    const file = `${bucket.dir}/${fileNameOf(key)}`;
    const entry: Entry = {
      file,
      offset: head.length,
      size,
      mtime,
      etag,
      contentType,
      meta,
      parts: undefined,
    };
    setObject(bucket, key, entry, tmp);
    send(res, 200, { ETag: `"${etag}"` });
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

  const getObject = (
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
      'x-amz-request-id': (counter++).toString(16),
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
      deleteObject(bucket, key);
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

  /** The byte ranges of files that hold `length` bytes of an object from `start`. */
  const segmentsOf = (entry: Entry, start: number, length: number): Segment[] => {
    if (!entry.parts) return [{ file: entry.file, position: entry.offset + start, remaining: length }];
    const segments: Segment[] = [];
    let partStart = 0;
    const end = start + length;
    for (const part of entry.parts) {
      const partEnd = partStart + part.size;
      if (partEnd > start && partStart < end) {
        const from = Math.max(start, partStart);
        const to = Math.min(end, partEnd);
        segments.push({ file: part.file, position: from - partStart, remaining: to - from });
      }
      partStart = partEnd;
    }
    return segments;
  };

  // ---- copy ------------------------------------------------------------------------------------

  /**
   * CopyObject (a PUT with `x-amz-copy-source: /<bucket>/<key>`, URI-encoded): the source's bytes
   * become a new object with its own ETag and time, with the source's content type and metadata
   * (`x-amz-metadata-directive: COPY`, the default) or the request's (`REPLACE`). The source's files
   * are opened before anything is written, so a source replaced or deleted meanwhile is still copied
   * whole. Answers CopyObjectResult; a missing source is 404 NoSuchKey. Conditional and ranged copies
   * are not implemented (501).
   */
  const copyObject = async (req: IncomingMessage, res: ServerResponse, bucket: Bucket, key: string) => {
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
    const sourceBucket = buckets.get(path.slice(0, slash));
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
    const etag = nextEtag();
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
    const tmp = tmpPath();
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
    if (buckets.get(bucket.name) !== bucket) {
      removeQuietly(tmp);
      throw noSuchBucket(bucket.name);
    }
    const file = `${bucket.dir}/${fileNameOf(key)}`;
    const entry: Entry = {
      file,
      offset: head.length,
      size: source.size,
      mtime,
      etag,
      contentType,
      meta,
      parts: undefined,
    };
    setObject(bucket, key, entry, tmp);
    sendXml(
      res,
      `<CopyObjectResult xmlns="${XMLNS}"><LastModified>${new Date(mtime).toISOString()}</LastModified>` +
        `<ETag>&quot;${etag}&quot;</ETag></CopyObjectResult>`,
    );
  };

  // ---- multipart -------------------------------------------------------------------------------

  const uploadOf = (bucket: Bucket, key: string, query: Query) => {
    const id = query.get('uploadId') ?? '';
    const upload = uploads.get(id);
    if (!upload || upload.bucket !== bucket.name || upload.key !== key) throw noSuchUpload(id);
    return upload;
  };

  const initiateUpload = (res: ServerResponse, req: IncomingMessage, bucket: Bucket, key: string) => {
    const { contentType, meta } = objectHeaders(req);
    const id = `u${randomBytes(12).toString('hex')}`;
    const dir = join(uploadsDir, id);
    mkdirSync(dir);
    uploads.set(id, {
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
      res,
      `<InitiateMultipartUploadResult xmlns="${XMLNS}"><Bucket>${xmlEscape(bucket.name)}</Bucket>` +
        `<Key>${xmlEscape(key)}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
    );
  };

  const uploadPart = async (req: IncomingMessage, res: ServerResponse, upload: Upload, query: Query) => {
    const number = Number(query.get('partNumber'));
    if (!Number.isInteger(number) || number < 1 || number > 10_000) {
      throw new S3Failure(400, 'InvalidArgument', 'Part number must be an integer between 1 and 10000');
    }
    objectHeaders(req);
    const tmp = tmpPath();
    const size = await receiveFile(req, tmp, undefined);
    if (size === undefined) return;
    const expected = expectedLength(req);
    if (expected !== undefined && expected !== size) {
      removeQuietly(tmp);
      throw new S3Failure(400, 'IncompleteBody', 'You did not provide the number of bytes specified');
    }
    if (uploads.get(upload.id) !== upload) {
      removeQuietly(tmp);
      throw noSuchUpload(upload.id);
    }
    renameSync(tmp, join(upload.dir, String(number)));
    const etag = nextEtag();
    upload.parts.set(number, { etag, size, mtime: Date.now() });
    send(res, 200, { ETag: `"${etag}"` });
  };

  const completeUpload = async (
    req: IncomingMessage,
    res: ServerResponse,
    bucket: Bucket,
    upload: Upload,
  ) => {
    const xml = await readBody(req);
    if (!/<CompleteMultipartUpload[\s>]/.test(xml)) {
      throw new S3Failure(400, 'MalformedXML', 'The XML you provided was not well-formed');
    }
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
    if (chosen.length === 0) throw new S3Failure(400, 'MalformedXML', 'The XML you provided lists no parts');
    for (const { number, part } of chosen.slice(0, -1)) {
      if (part.size < MIN_PART) {
        throw new S3Failure(
          400,
          'EntityTooSmall',
          'Your proposed upload is smaller than the minimum allowed',
          {
            PartNumber: String(number),
          },
        );
      }
    }
    // From here on everything is synchronous, so no part upload, abort or second complete interleaves.
    if (uploads.get(upload.id) !== upload) throw noSuchUpload(upload.id);
    if (buckets.get(bucket.name) !== bucket) throw noSuchBucket(bucket.name);
    const etag = `${nextEtag()}-${chosen.length}`;
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
    const tmp = tmpPath();
    writeFileSync(tmp, head);
    chosen.forEach(({ number }, i) => renameSync(`${upload.dir}/${number}`, (parts[i] as PartFile).file));
    uploads.delete(upload.id);
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
    setObject(bucket, upload.key, entry, tmp);
    const host = req.headers.host ?? `127.0.0.1:${port}`;
    sendXml(
      res,
      `<CompleteMultipartUploadResult xmlns="${XMLNS}">` +
        `<Location>http://${xmlEscape(host)}/${xmlEscape(bucket.name)}/${xmlEscape(urlEncodeKey(upload.key))}</Location>` +
        `<Bucket>${xmlEscape(bucket.name)}</Bucket><Key>${xmlEscape(upload.key)}</Key>` +
        `<ETag>&quot;${etag}&quot;</ETag></CompleteMultipartUploadResult>`,
    );
  };

  const abortUpload = (res: ServerResponse, upload: Upload) => {
    uploads.delete(upload.id);
    rmSync(upload.dir, { recursive: true, force: true });
    send(res, 204, {});
  };

  const listParts = (res: ServerResponse, bucket: Bucket, upload: Upload, query: Query) => {
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
      const part = upload.parts.get(n) as Part;
      xml +=
        `<Part><PartNumber>${n}</PartNumber><LastModified>${new Date(part.mtime).toISOString()}</LastModified>` +
        `<ETag>&quot;${part.etag}&quot;</ETag><Size>${part.size}</Size></Part>`;
    }
    sendXml(res, `${xml}</ListPartsResult>`);
  };

  const listUploads = (res: ServerResponse, bucket: Bucket, query: Query) => {
    const prefix = query.get('prefix') ?? '';
    const found = [...uploads.values()]
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
    sendXml(res, `${xml}</ListMultipartUploadsResult>`);
  };

  // ---- bucket operations -----------------------------------------------------------------------

  const createBucket = async (req: IncomingMessage, res: ServerResponse, name: string) => {
    if (hasBody(req)) {
      const xml = await readBody(req);
      if (xml.trim() !== '' && !/<CreateBucketConfiguration[\s>]/.test(xml)) {
        throw new S3Failure(400, 'MalformedXML', 'The XML you provided was not well-formed');
      }
    }
    if (!BUCKET_NAME.test(name) || name.includes('..') || /^\d+\.\d+\.\d+\.\d+$/.test(name)) {
      throw new S3Failure(400, 'InvalidBucketName', 'The specified bucket is not valid.', {
        BucketName: name,
      });
    }
    if (buckets.has(name)) {
      throw new S3Failure(
        409,
        'BucketAlreadyOwnedByYou',
        'Your previous request to create the named bucket succeeded',
        {
          BucketName: name,
        },
      );
    }
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    buckets.set(name, {
      name,
      dir,
      created: Date.now(),
      objects: new Map(),
      sorted: undefined,
      lifecycle: undefined,
    });
    send(res, 200, { Location: `/${name}` });
  };

  const deleteBucket = (res: ServerResponse, bucket: Bucket) => {
    if (bucket.objects.size > 0) {
      throw new S3Failure(409, 'BucketNotEmpty', 'The bucket you tried to delete is not empty', {
        BucketName: bucket.name,
      });
    }
    for (const upload of uploads.values()) {
      if (upload.bucket !== bucket.name) continue;
      uploads.delete(upload.id);
      rmSync(upload.dir, { recursive: true, force: true });
    }
    buckets.delete(bucket.name);
    rmSync(bucket.dir, { recursive: true, force: true });
    send(res, 204, {});
  };

  const putLifecycle = async (req: IncomingMessage, res: ServerResponse, bucket: Bucket) => {
    const xml = await readBody(req);
    const rules = parseLifecycle(xml);
    if (!rules) throw new S3Failure(400, 'MalformedXML', 'The XML you provided was not well-formed');
    const tmp = tmpPath();
    writeFileSync(tmp, xml);
    renameSync(tmp, join(bucket.dir, LIFECYCLE_FILE));
    bucket.lifecycle = { xml, rules };
    send(res, 200, {});
  };

  const getLifecycle = (res: ServerResponse, bucket: Bucket) => {
    if (!bucket.lifecycle) {
      throw new S3Failure(404, 'NoSuchLifecycleConfiguration', 'The lifecycle configuration does not exist', {
        BucketName: bucket.name,
      });
    }
    const xml = bucket.lifecycle.xml.replace(/^\s*<\?xml[^>]*\?>\s*/, '');
    sendXml(res, xml);
  };

  const deleteLifecycle = (res: ServerResponse, bucket: Bucket) => {
    removeQuietly(join(bucket.dir, LIFECYCLE_FILE));
    bucket.lifecycle = undefined;
    send(res, 204, {});
  };

  const deleteObjects = async (req: IncomingMessage, res: ServerResponse, bucket: Bucket) => {
    const xml = await readBody(req);
    if (!/<Delete[\s>]/.test(xml))
      throw new S3Failure(400, 'MalformedXML', 'The XML you provided was not well-formed');
    const quiet = /<Quiet>\s*true\s*<\/Quiet>/.test(xml);
    let out = `<DeleteResult xmlns="${XMLNS}">`;
    for (const [, body = ''] of xml.matchAll(/<Object>([\s\S]*?)<\/Object>/g)) {
      const key = xmlUnescape(/<Key>([^<]*)<\/Key>/.exec(body)?.[1] ?? '');
      if (key === '') continue;
      deleteObject(bucket, key);
      if (!quiet) out += `<Deleted><Key>${xmlEscape(key)}</Key></Deleted>`;
    }
    sendXml(res, `${out}</DeleteResult>`);
  };

  const maxKeysOf = (query: Query) => {
    const raw = query.get('max-keys');
    if (raw === undefined) return 1000;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < 0) throw new S3Failure(400, 'InvalidArgument', 'Invalid max-keys');
    return Math.min(n, 1000);
  };

  const listObjects = (res: ServerResponse, bucket: Bucket, query: Query, v2: boolean) => {
    const prefix = query.get('prefix') ?? '';
    const delimiter = query.get('delimiter') ?? '';
    const max = maxKeysOf(query);
    const encoding = query.get('encoding-type');
    if (encoding !== undefined && encoding !== 'url') {
      throw new S3Failure(400, 'InvalidArgument', 'Invalid Encoding Method specified in Request');
    }
    const enc = encoding === 'url' ? (s: string) => xmlEscape(urlEncodeKey(s)) : xmlEscape;
    let after: { value: string; isPrefix: boolean } | undefined;
    const token = query.get('continuation-token');
    const startAfter = query.get('start-after');
    const marker = query.get('marker');
    if (v2 && token !== undefined) after = decodeToken(token);
    else if (v2 && startAfter) after = { value: startAfter, isPrefix: false };
    else if (!v2 && marker) {
      after = { value: marker, isPrefix: delimiter !== '' && marker.endsWith(delimiter) };
    }
    const page = listPage(sortedKeys(bucket), prefix, delimiter, max, after);
    let xml =
      `<ListBucketResult xmlns="${XMLNS}"><Name>${xmlEscape(bucket.name)}</Name>` +
      `<Prefix>${enc(prefix)}</Prefix><MaxKeys>${max}</MaxKeys>` +
      (delimiter ? `<Delimiter>${enc(delimiter)}</Delimiter>` : '') +
      `<IsTruncated>${page.truncated}</IsTruncated>` +
      (encoding ? `<EncodingType>url</EncodingType>` : '');
    if (v2) {
      xml += `<KeyCount>${page.keys.length + page.prefixes.length}</KeyCount>`;
      if (token !== undefined) xml += `<ContinuationToken>${xmlEscape(token)}</ContinuationToken>`;
      if (startAfter) xml += `<StartAfter>${enc(startAfter)}</StartAfter>`;
      if (page.truncated && page.last) {
        xml += `<NextContinuationToken>${encodeToken(page.last)}</NextContinuationToken>`;
      }
    } else {
      xml += `<Marker>${enc(marker ?? '')}</Marker>`;
      if (page.truncated && page.last) xml += `<NextMarker>${enc(page.last.value)}</NextMarker>`;
    }
    for (const key of page.keys) {
      const entry = bucket.objects.get(key) as Entry;
      xml +=
        `<Contents><Key>${enc(key)}</Key><LastModified>${new Date(entry.mtime).toISOString()}</LastModified>` +
        `<ETag>&quot;${entry.etag}&quot;</ETag><Size>${entry.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
    }
    for (const common of page.prefixes)
      xml += `<CommonPrefixes><Prefix>${enc(common)}</Prefix></CommonPrefixes>`;
    sendXml(res, `${xml}</ListBucketResult>`);
  };

  const listBuckets = (res: ServerResponse) => {
    let xml = `<ListAllMyBucketsResult xmlns="${XMLNS}"><Owner><ID>esign</ID><DisplayName>esign</DisplayName></Owner><Buckets>`;
    for (const bucket of [...buckets.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      xml += `<Bucket><Name>${bucket.name}</Name><CreationDate>${new Date(bucket.created).toISOString()}</CreationDate></Bucket>`;
    }
    sendXml(res, `${xml}</Buckets></ListAllMyBucketsResult>`);
  };

  // ---- routing ---------------------------------------------------------------------------------

  /** Subresource names in the query, without authentication parameters and response overrides. */
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

  const route = (req: IncomingMessage, res: ServerResponse, path: string, query: Query | undefined) => {
    const method = req.method ?? 'GET';
    const slash = path.indexOf('/', 1);
    const bucketName = decodeURIComponent(slash < 0 ? path.slice(1) : path.slice(1, slash));
    const rawKey = slash < 0 ? '' : path.slice(slash + 1);
    const key = rawKey.includes('%') ? decodeURIComponent(rawKey) : rawKey;
    const sub = subresources(query, Date.now);
    const q = query ?? new Map<string, string>();

    if (bucketName === '') {
      if (method === 'GET' && sub.size === 0) return listBuckets(res);
      throw notImplemented();
    }
    if (key === '' && method === 'PUT' && sub.size === 0) return createBucket(req, res, bucketName);
    const bucket = buckets.get(bucketName);
    if (!bucket) throw noSuchBucket(bucketName);

    if (key !== '') {
      if (Buffer.byteLength(key) > MAX_KEY_BYTES) {
        throw new S3Failure(400, 'KeyTooLongError', 'Your key is too long');
      }
      switch (method) {
        case 'GET':
          if (sub.size === 0) return getObject(req, res, bucket, key, query);
          if (only(sub, 'uploadId', 'max-parts', 'part-number-marker')) {
            return listParts(res, bucket, uploadOf(bucket, key, q), q);
          }
          break;
        case 'HEAD':
          if (sub.size === 0) return getObject(req, res, bucket, key, query);
          break;
        case 'PUT':
          if (sub.size === 0 && req.headers['x-amz-copy-source'] !== undefined) {
            return copyObject(req, res, bucket, key);
          }
          if (sub.size === 0) return putObject(req, res, bucket, key);
          if (sub.size === 2 && sub.has('partNumber') && sub.has('uploadId')) {
            return uploadPart(req, res, uploadOf(bucket, key, q), q);
          }
          break;
        case 'DELETE':
          if (sub.size === 0) {
            deleteObject(bucket, key);
            return send(res, 204, {});
          }
          if (only(sub, 'uploadId')) return abortUpload(res, uploadOf(bucket, key, q));
          break;
        case 'POST':
          if (only(sub, 'uploads') && sub.size === 1) return initiateUpload(res, req, bucket, key);
          if (only(sub, 'uploadId') && sub.size === 1)
            return completeUpload(req, res, bucket, uploadOf(bucket, key, q));
          break;
      }
      throw notImplemented();
    }

    switch (method) {
      case 'HEAD':
        if (sub.size === 0) return send(res, 200, { 'x-amz-bucket-region': region });
        break;
      case 'GET':
        if (sub.size === 1 && sub.has('location')) {
          return sendXml(
            res,
            `<LocationConstraint xmlns="${XMLNS}">${xmlEscape(region)}</LocationConstraint>`,
          );
        }
        if (sub.size === 1 && sub.has('lifecycle')) return getLifecycle(res, bucket);
        if (sub.has('uploads') && only(sub, ...LIST_UPLOADS)) return listUploads(res, bucket, q);
        if (q.get('list-type') === '2' && only(sub, ...LIST_V2)) return listObjects(res, bucket, q, true);
        if (only(sub, ...LIST_V1)) return listObjects(res, bucket, q, false);
        break;
      case 'PUT':
        if (sub.size === 1 && sub.has('lifecycle')) return putLifecycle(req, res, bucket);
        break;
      case 'DELETE':
        if (sub.size === 0) return deleteBucket(res, bucket);
        if (sub.size === 1 && sub.has('lifecycle')) return deleteLifecycle(res, bucket);
        break;
      case 'POST':
        if (sub.size === 1 && sub.has('delete')) return deleteObjects(req, res, bucket);
        break;
    }
    throw notImplemented();
  };

  const server = createServer({ requestTimeout: 0, headersTimeout: 70_000, noDelay: true }, (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const fail = (err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const failure =
        err instanceof S3Failure
          ? err
          : err instanceof URIError
            ? new S3Failure(400, 'InvalidURI', 'Could not parse the specified URI')
            : new S3Failure(500, 'InternalError', err instanceof Error ? err.message : String(err));
      sendFailure(req, res, failure, path);
    };
    try {
      if (!path.startsWith('/')) throw new S3Failure(400, 'InvalidURI', 'Could not parse the specified URI');
      const pending = route(req, res, path, q < 0 ? undefined : parseQuery(url.slice(q + 1)));
      if (pending) pending.catch(fail);
    } catch (err) {
      fail(err);
    }
  });
  // Clients keep connections for a while (minio-js and Node's agent); never be the one to drop first.
  server.keepAliveTimeout = 65_000;

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });

  sweepExpired();
  const sweeper = setInterval(() => sweepExpired(), options.lifecycleSweepMs ?? 3_600_000);
  sweeper.unref();

  return {
    endpoint: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    region,
    sweepExpired,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        clearInterval(sweeper);
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
};
