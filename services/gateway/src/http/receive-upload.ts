import { createHash, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import type { Request } from 'express';
import busboy from 'busboy';
import { ServiceError, type TDocumentKind } from '@esign/contracts';
import { UPLOAD_PREFIX, type BlobStore } from '@esign/blob';
import type { Logger, UpDownOf } from '@esign/telemetry';
import { RefusedError } from './refusal';
import { SNIFF_BYTES, sniffDocumentKind } from './sniff';

export interface ReceivedFile {
  /** Object key of the stored upload (claim check for the workers). */
  key: string;
  fileName: string;
  kind: TDocumentKind;
  size: number;
  /** Hex SHA-256 of the file, when asked for (`hash`). */
  sha256?: string;
}

export interface ReceivedUpload {
  /** Text fields; empty values are left out so that defaults apply. */
  fields: Record<string, string>;
  file?: ReceivedFile;
}

export interface ReceiveOptions {
  blob: BlobStore;
  maxFileBytes: number;
  /** Kinds this endpoint accepts. */
  accept: readonly TDocumentKind[];
  /** Largest text field. */
  maxFieldBytes?: number;
  /** Compute the file's SHA-256 while it streams through. */
  hash?: boolean;
  logger?: Logger;
  /** Uploads streaming to object storage now: one more from when the file (its type checked) starts streaming there until that upload ends, however it ends. */
  inFlight?: UpDownOf<'uploadsActive'>;
}

const KIND_NAMES: Record<TDocumentKind, string> = { pdf: 'PDF', png: 'PNG', jpeg: 'JPEG' };
const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MB`;

/** A file name safe to store and to echo in headers: no path, no control characters, bounded. */
export const cleanFileName = (name: string | undefined): string => {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  // Control characters would corrupt headers and logs; the rest of Unicode is kept.
  // eslint-disable-next-line no-control-regex -- stripping control characters is the point
  const cleaned = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  return cleaned.slice(0, 255) || 'document';
};

/**
 * Stream a multipart/form-data request: the part named `file` goes straight to object storage (never
 * held whole in memory here), its type sniffed from its first bytes; the request fails with
 * `too_large` the moment the file passes the limit, without reading the rest.
 */
export const receiveUpload = (req: Request, options: ReceiveOptions): Promise<ReceivedUpload> =>
  new Promise((resolve, reject) => {
    const contentType = req.headers['content-type'] ?? '';
    if (!/^multipart\/form-data/i.test(contentType)) {
      reject(new ServiceError('invalid_argument', 'request must be multipart/form-data', 'file'));
      return;
    }
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: req.headers,
        // Browsers and curl send file names as UTF-8 bytes; busboy's default reads them as Latin-1.
        defParamCharset: 'utf8',
        limits: {
          // busboy reports the limit as soon as a file reaches it: one byte more lets a file of exactly
          // the limit through, and the first byte past it still stops the upload.
          fileSize: options.maxFileBytes + 1,
          files: 1,
          fields: 50,
          fieldSize: options.maxFieldBytes ?? 1024 * 1024,
          parts: 60,
        },
      });
    } catch {
      reject(new ServiceError('invalid_argument', 'malformed multipart/form-data request', 'file'));
      return;
    }

    const fields: Record<string, string> = {};
    let file: ReceivedFile | undefined;
    let fileWork: Promise<void> | undefined;
    let settled = false;
    let storedKey: string | undefined;
    let uploadSettled: Promise<unknown> = Promise.resolve();
    let abortUpload = () => undefined as void;

    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      req.unpipe(bb);
      abortUpload();
      // Reject at once (a 413 must not wait); the partial object is removed once its upload has stopped.
      reject(err instanceof Error ? err : new Error(String(err)));
      void uploadSettled
        .then(() => (storedKey ? options.blob.remove(storedKey) : undefined))
        .catch(() => undefined);
    };

    const storeFile = async (stream: Readable, fileName: string): Promise<void> => {
      let head = Buffer.alloc(0);
      let pass: PassThrough | undefined;
      let upload: Promise<number> | undefined;
      let size = 0;
      let kind: TDocumentKind | undefined;
      const hasher = options.hash ? createHash('sha256') : undefined;
      const start = (first: Buffer) => {
        // The file may have reached its limit in the chunk that completed its first bytes: the request
        // has failed already, and an upload started now would wait for bytes that never come.
        if (settled) throw new Error('the request failed before its upload started');
        kind = sniffDocumentKind(first);
        if (!kind || !options.accept.includes(kind)) {
          const expected = options.accept.map((k) => KIND_NAMES[k]).join(', ');
          throw new ServiceError(
            'invalid_argument',
            `file must be ${options.accept.length > 1 ? 'one of ' : 'a '}${expected} (the content is ${kind ? KIND_NAMES[kind] : 'not a supported type'})`,
            'file',
          );
        }
        const key = `${UPLOAD_PREFIX}${randomUUID()}`;
        storedKey = key;
        pass = new PassThrough({ highWaterMark: 1024 * 1024 });
        // Errors of this stream reach us through the upload promise; a listener keeps them from crashing.
        pass.on('error', () => undefined);
        const body = pass;
        upload = options.blob.put(key, body, { contentType: 'application/octet-stream' });
        options.inFlight?.add(1);
        uploadSettled = upload.catch(() => undefined).finally(() => options.inFlight?.add(-1));
        abortUpload = () => void body.destroy(new Error('upload aborted'));
        if (!pass.write(first)) return once(pass, 'drain');
        return undefined;
      };
      for await (const chunk of stream) {
        const buf = chunk as Buffer;
        size += buf.length;
        hasher?.update(buf);
        if (!pass) {
          head = Buffer.concat([head, buf]);
          if (head.length >= SNIFF_BYTES) await start(head);
          continue;
        }
        if (!pass.write(buf)) await once(pass, 'drain');
      }
      if ((stream as Readable & { truncated?: boolean }).truncated) return;
      if (size === 0) throw new ServiceError('invalid_argument', 'file is empty', 'file');
      if (!pass) await start(head);
      pass?.end();
      await upload;
      if (!kind || !storedKey) return;
      file = { key: storedKey, fileName, kind, size, ...(hasher ? { sha256: hasher.digest('hex') } : {}) };
    };

    bb.on('file', (name, stream, info) => {
      if (name !== 'file' || fileWork) {
        stream.resume();
        return;
      }
      stream.on('limit', () =>
        fail(
          new RefusedError(
            'too_large',
            `file exceeds the ${mib(options.maxFileBytes)} limit`,
            'size',
            'file',
          ),
        ),
      );
      fileWork = storeFile(stream, cleanFileName(info.filename)).catch((err: unknown) => {
        stream.resume();
        options.logger?.debug('upload failed', { err });
        fail(err);
      });
    });
    bb.on('field', (name, value, info) => {
      if (info.valueTruncated) {
        fail(new ServiceError('invalid_argument', `${name} is too long`, name));
        return;
      }
      if (value !== '') fields[name] = value;
    });
    bb.on('filesLimit', () => undefined);
    bb.on('error', () =>
      fail(new ServiceError('invalid_argument', 'malformed multipart/form-data body', 'file')),
    );
    bb.on('close', () => {
      void (fileWork ?? Promise.resolve()).then(() => {
        if (settled) return;
        settled = true;
        resolve({ fields, file });
      });
    });
    req.on('aborted', () =>
      fail(new ServiceError('invalid_argument', 'request aborted by the client', 'file')),
    );
    req.pipe(bb);
  });
