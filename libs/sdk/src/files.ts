import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { Readable } from 'node:stream';

/**
 * A file to upload:
 * - a path (string): the file is read from disk;
 * - bytes: a Buffer, a Uint8Array or an ArrayBuffer;
 * - a Blob (or a File);
 * - a Node Readable stream (or any async iterable of chunks): collected into memory before the request
 *   is sent, so that a retry can send it again.
 */
export type FileInput =
  string | Uint8Array | ArrayBuffer | Blob | Readable | AsyncIterable<Uint8Array | string>;

/** A file ready for a multipart form. */
export interface FilePart {
  readonly blob: Blob;
  readonly fileName: string;
}

const KINDS = [
  { magic: [0x25, 0x50, 0x44, 0x46], extension: 'pdf', type: 'application/pdf' },
  { magic: [0x89, 0x50, 0x4e, 0x47], extension: 'png', type: 'image/png' },
  { magic: [0xff, 0xd8, 0xff], extension: 'jpg', type: 'image/jpeg' },
] as const;

/** The kind of a file from its first bytes (the server decides the same way; the name does not matter to it). */
const kindOf = (head: Uint8Array) => KINDS.find((kind) => kind.magic.every((byte, i) => head[i] === byte));

const isAsyncIterable = (value: unknown): value is AsyncIterable<Uint8Array | string> =>
  typeof value === 'object' && value !== null && Symbol.asyncIterator in value;

/** The file name a stream was opened from (fs.createReadStream sets `path`). */
const pathOf = (value: object): string | undefined =>
  'path' in value && typeof value.path === 'string' ? value.path : undefined;

const collect = async (chunks: AsyncIterable<Uint8Array | string>): Promise<Uint8Array> => {
  const parts: Uint8Array[] = [];
  let size = 0;
  const encoder = new TextEncoder();
  for await (const chunk of chunks) {
    const bytes = typeof chunk === 'string' ? encoder.encode(chunk) : chunk;
    parts.push(bytes);
    size += bytes.byteLength;
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    all.set(part, offset);
    offset += part.byteLength;
  }
  return all;
};

const fromBytes = (bytes: Uint8Array, name: string | undefined, type?: string): FilePart => {
  const kind = kindOf(bytes.subarray(0, 4));
  return {
    blob: new Blob([bytes], { type: type || kind?.type || 'application/octet-stream' }),
    fileName: name ?? `document.${kind?.extension ?? 'pdf'}`,
  };
};

/**
 * Turns any FileInput into a Blob and a file name. The name is `fileName` when given, else the
 * file's own (a path's or a stream's base name, a File's name), else `document.<pdf|png|jpg>` from
 * the content. The name only shapes the signed file's name (`<name>-signed.pdf`) and the record.
 */
export const toFilePart = async (file: FileInput, fileName?: string): Promise<FilePart> => {
  if (typeof file === 'string') {
    return fromBytes(await readFile(file), fileName ?? basename(file));
  }
  if (file instanceof Uint8Array) return fromBytes(file, fileName);
  if (file instanceof ArrayBuffer) return fromBytes(new Uint8Array(file), fileName);
  if (file instanceof Blob) {
    const ownName = 'name' in file && typeof file.name === 'string' && file.name ? file.name : undefined;
    const head = new Uint8Array(await file.slice(0, 4).arrayBuffer());
    const kind = kindOf(head);
    return {
      blob: file,
      fileName: fileName ?? ownName ?? `document.${kind?.extension ?? 'pdf'}`,
    };
  }
  if (isAsyncIterable(file)) {
    const path = pathOf(file);
    return fromBytes(await collect(file), fileName ?? (path ? basename(path) : undefined));
  }
  throw new TypeError('file must be a path, a Buffer/Uint8Array/ArrayBuffer, a Blob or a readable stream');
};
