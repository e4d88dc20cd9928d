import { createRequire } from 'node:module';
import type * as PdfLib from 'pdf-lib';
import type { PDFObject } from 'pdf-lib';

/**
 * Objects that are written as they were parsed. Writing a document anew measures and writes every
 * object again, although signing changes a few (a stamped page, the page tree, the catalog, the
 * form): a 20-page document whose pages list 60 fonts each spent a fifth of its signing writing
 * dictionaries it had just read. An object read from the upload that nothing has changed since is
 * written as its bytes in the upload instead (the same object; its spacing as its author wrote it).
 *
 * How "nothing has changed" is known: every dictionary and array that parsing an indirect object
 * makes (the object and everything written inside it) shares one record with it; pdf-lib changes a
 * dictionary only through `PDFDict.set`/`delete` and an array only through `PDFArray.push`/`insert`/
 * `set`/`remove` (its other code calls these), and each of those marks the record changed. A
 * dictionary or array taken out of an object and changed elsewhere marks the object it came from,
 * which is then written anew too. Streams are always written anew (their dictionaries are small and
 * their data is copied either way).
 */
export interface ParsedObject {
  /** The indirect object whose parse made this record; set once its parse ends. */
  root?: PDFObject;
  /** Its bytes in the parsed file (a view, never a copy). */
  bytes?: Uint8Array;
  changed: boolean;
}

// The build of pdf-lib that Node loads (its "main": CommonJS), whose objects the signer handles.
const lib = createRequire(import.meta.url)('pdf-lib') as typeof PdfLib;
const { PDFArray, PDFDict } = lib;

/** The record of the indirect object each parsed dictionary and array belongs to. */
const records = new WeakMap<object, ParsedObject>();

/** PDF's white-space characters: NUL, tab, line feed, form feed, carriage return, space. */
const isWhitespace = (byte: number): boolean =>
  byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09 || byte === 0x0c || byte === 0x00;

let depth = 0;
let current: ParsedObject | undefined;

/**
 * The parser starts an object (nested ones included): the record it belongs to, a new one for an
 * indirect object. `leaveParse` must follow, whatever the parse does, then `recordParsed` if it
 * gave an object.
 */
export const enterParse = (): ParsedObject | undefined => {
  if (depth++ === 0) current = { changed: false };
  return current;
};

export const leaveParse = (): void => {
  if (--depth === 0) current = undefined;
};

/** The parser made `object` from `bytes[start, end)` (after `leaveParse`). */
export const recordParsed = (
  record: ParsedObject | undefined,
  object: PDFObject,
  bytes: Uint8Array,
  start: number,
  end: number,
): void => {
  if (!record || !(object instanceof PDFDict || object instanceof PDFArray)) return;
  records.set(object, record);
  if (depth === 0) {
    // pdf-lib reads past the whitespace after a dictionary (looking for `stream`): not the object's.
    let last = end;
    while (last > start && isWhitespace(bytes[last - 1] ?? 0)) last -= 1;
    record.root = object;
    record.bytes = bytes.subarray(start, last);
  }
};

/** The object's bytes as parsed, when it is an indirect object read from a file and unchanged since. */
export const pristineBytesOf = (object: PDFObject): Uint8Array | undefined => {
  const record = records.get(object);
  return record && record.root === object && !record.changed ? record.bytes : undefined;
};

const changed = (container: object): void => {
  const record = records.get(container);
  if (record) record.changed = true;
};

// Fixed arities, as pdf-lib's own methods: these run for every entry of every object made while signing.
type Watched<T> = Record<string, (this: object, a?: unknown, b?: unknown) => T>;
const dict = PDFDict.prototype as unknown as Watched<unknown>;
const array = PDFArray.prototype as unknown as Watched<unknown>;
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
  proto[method] = function watched(this: object, a?: unknown, b?: unknown): unknown {
    changed(this);
    return original.call(this, a, b);
  };
}
