import { hash } from 'node:crypto';
import { closeSync, fstatSync, openSync, readSync, statSync, unlinkSync, writeSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';

/**
 * The storage format: `<directory>/<bucket>/<sha1 of key>`, each file a small header (key, content
 * type, ETag, time, user metadata) followed by the bytes, so that the folder alone rebuilds the index
 * at start. A completed multipart object is a header-only file whose parts lie beside it, named
 * `<sha1>.<etag>.<i>`. Bodies are written to `.tmp/` first and renamed into place when complete.
 */

const HEADER_MAGIC = 0x45534f31; // "ESO1"
export const UPLOADS_DIR = '.uploads';
export const TMP_DIR = '.tmp';
export const LIFECYCLE_FILE = '.lifecycle.xml';
export const OBJECT_FILE = /^[0-9a-f]{40}$/;
export const PART_FILE = /^[0-9a-f]{40}\./;
export const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export interface PartFile {
  readonly file: string;
  readonly size: number;
}

/** What the index knows of one object, enough to serve it without re-reading its header. */
export interface Entry {
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

interface StoredHeader {
  k: string;
  t: string;
  e: string;
  m: number;
  x?: Record<string, string>;
  /** Sizes of the part files of a multipart object, in order. */
  p?: number[];
}

export const fileNameOf = (key: string) => hash('sha1', key, 'hex');

/** Part files of a multipart object sit beside its header file, named after it and its ETag. */
export const partFileOf = (file: string, etag: string, index: number) => `${file}.${etag}.${index}`;

export const encodeHeader = (h: StoredHeader): Buffer => {
  const json = Buffer.from(JSON.stringify(h));
  const buf = Buffer.allocUnsafe(8 + json.length);
  buf.writeUInt32BE(HEADER_MAGIC, 0);
  buf.writeUInt32BE(json.length, 4);
  json.copy(buf, 8);
  return buf;
};

export const readFully = (fd: number, buf: Buffer, position: number) => {
  let done = 0;
  while (done < buf.length) {
    const n = readSync(fd, buf, done, buf.length - done, position + done);
    if (n === 0) throw new Error('object file is shorter than its index says');
    done += n;
  }
};

export const writeFully = (fd: number, buf: Buffer) => {
  let done = 0;
  while (done < buf.length) done += writeSync(fd, buf, done);
};

const asError = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));

export const removeQuietly = (path: string) => {
  try {
    unlinkSync(path);
  } catch {
    // Already gone.
  }
};

/** The entry of an object file written by this server, or undefined for anything else. */
export const readObjectFile = (file: string): { key: string; entry: Entry } | undefined => {
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

/**
 * Stream the body into `path` (after `head`), with synchronous writes: for page-cache writes they
 * cost less than the thread-pool round trips of asynchronous ones. Resolves to the byte count, or
 * undefined (and no file) when the client went away before the end.
 */
export const receiveFile = (req: IncomingMessage, path: string, head: Buffer | undefined) =>
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
