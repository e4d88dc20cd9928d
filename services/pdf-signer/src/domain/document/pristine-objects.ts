import { createRequire } from 'node:module';
import type * as PdfLib from 'pdf-lib';
import type { PDFContext, PDFObject } from 'pdf-lib';

/**
 * Objects that are written as they were parsed. Writing a document anew measures and writes every
 * object again, although signing changes a few (a stamped page, the page tree, the catalog, the
 * form): a 20-page document whose pages list 60 fonts each spent a fifth of its signing writing
 * dictionaries it had just read. An object read from the upload that nothing has changed since is
 * written as its bytes in the upload instead (the same object; its spacing as its author wrote it).
 *
 * How "nothing has changed" is known: pdf-lib changes a dictionary only through `PDFDict.set`/
 * `delete` and an array only through `PDFArray.push`/`insert`/`set`/`remove` (its other code calls
 * these); each of those notes the dictionary or array as changed in its document's record. When the
 * document is written, an indirect object read from the file is written as read if neither it nor
 * any dictionary or array written inside it (references not followed) was noted. Streams are always
 * written anew (their dictionaries are small and their data is copied either way).
 *
 * Everything lives in one record per parsed document (plain maps, no weak table per object, whose
 * entries the garbage collector would have to visit at every collection).
 */
interface DocumentRecord {
  /** Each indirect dictionary or array parsed from the file, and its bytes there (views, never copies). */
  readonly parsed: Map<PDFObject, Uint8Array>;
  /** Dictionaries and arrays of this document changed since (new ones too: they are made by set/push). */
  readonly changed: Set<object>;
}

// The build of pdf-lib that Node loads (its "main": CommonJS), whose objects the signer handles.
const lib = createRequire(import.meta.url)('pdf-lib') as typeof PdfLib;
const { PDFArray, PDFDict } = lib;

const documents = new WeakMap<PDFContext, DocumentRecord>();

/** PDF's white-space characters: NUL, tab, line feed, form feed, carriage return, space. */
const isWhitespace = (byte: number): boolean =>
  byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;

let depth = 0;

/** The parser starts a dictionary, stream or array; `leaveParse` must follow, whatever the parse does. */
export const enterParse = (): void => {
  depth += 1;
};

export const leaveParse = (): void => {
  depth -= 1;
};

/**
 * The parser made `object` from `bytes[start, end)` for `context`'s document (after `leaveParse`):
 * kept when it is an indirect object (not one inside another) and a dictionary or an array.
 */
export const recordParsed = (
  context: PDFContext,
  object: PDFObject,
  bytes: Uint8Array,
  start: number,
  end: number,
): void => {
  if (depth !== 0 || !(object instanceof PDFDict || object instanceof PDFArray)) return;
  let record = documents.get(context);
  if (!record) {
    record = { parsed: new Map(), changed: new Set() };
    documents.set(context, record);
  }
  // pdf-lib reads past the whitespace after a dictionary (looking for `stream`): not the object's.
  let last = end;
  while (last > start && isWhitespace(bytes[last - 1] ?? 0)) last -= 1;
  record.parsed.set(object, bytes.subarray(start, last));
};

/** True when `container` or a dictionary or array inside it (references not followed) was changed. */
const changedWithin = (container: object, changed: Set<object>): boolean => {
  if (changed.has(container)) return true;
  if (container instanceof PDFDict) {
    for (const value of (container as unknown as { dict: Map<unknown, unknown> }).dict.values()) {
      if ((value instanceof PDFDict || value instanceof PDFArray) && changedWithin(value, changed))
        return true;
    }
  } else if (container instanceof PDFArray) {
    for (const value of (container as unknown as { array: unknown[] }).array) {
      if ((value instanceof PDFDict || value instanceof PDFArray) && changedWithin(value, changed))
        return true;
    }
  }
  return false;
};

/** The object's bytes as parsed, when it is an indirect object read from a file and unchanged since. */
export const pristineBytesOf = (context: PDFContext, object: PDFObject): Uint8Array | undefined => {
  const record = documents.get(context);
  const bytes = record?.parsed.get(object);
  return record && bytes && !changedWithin(object, record.changed) ? bytes : undefined;
};

type Watched = Record<string, (this: { context: PDFContext }, a?: unknown, b?: unknown) => unknown>;
const dict = PDFDict.prototype as unknown as Watched;
const array = PDFArray.prototype as unknown as Watched;
// Fixed arities, as pdf-lib's own methods: these run for every entry of every object made while signing.
for (const [proto, method] of [
  [dict, 'set'],
  [dict, 'delete'],
  [array, 'push'],
  [array, 'insert'],
  [array, 'set'],
  [array, 'remove'],
] as const) {
  const original = proto[method];
  if (!original) throw new Error(`pdf-lib has no ${method} to watch`);
  proto[method] = function watched(this: { context: PDFContext }, a?: unknown, b?: unknown): unknown {
    // Not while parsing: pdf-lib builds each array it parses with push.
    if (depth === 0) documents.get(this.context)?.changed.add(this);
    return original.call(this, a, b);
  };
}
