import { createRequire } from 'node:module';
import type * as PdfLib from 'pdf-lib';
import type { PDFContext, PDFDict, PDFName, PDFObject, PDFRawStream, PDFRef } from 'pdf-lib';
import { inflateWithinBudget } from './decode-budget';
import './name-lookup';
import { enterParse, leaveParse, recordParsed } from './pristine-objects';

/**
 * Faster versions of pdf-lib's hottest parsing steps, with the same results. pdf-lib's parser reads
 * a file one byte at a time through method calls, builds every name and number as a string one
 * character at a time, and decodes each name with a regular expression (four more per dictionary, to
 * look up /Type): parsing a 20-page document whose pages each list 60 fonts took half of its signing.
 * These scan the bytes in place instead. They keep pdf-lib's byte position, line and column exactly
 * as its own would (its errors report them), return the same objects (names and references are
 * pooled by pdf-lib: the same instances), and leave anything unusual (a number that is not a plain
 * integer, a name with a #-escape) to pdf-lib's own code. Hex strings are read in one piece: pdf-lib
 * adds them to a string one character at a time, and each signature of an envelope's revisions holds
 * one of 20-30 thousand digits (its /Contents), which made parsing a signed document mostly garbage. Object and cross-reference streams that
 * are only deflated are inflated by zlib (pdf-lib ignores a FlateDecode's /DecodeParms too).
 */

interface Stream {
  bytes: Uint8Array;
  idx: number;
  line: number;
  column: number;
  length: number;
  assertNext(expected: number): number;
}
interface Parser {
  bytes: Stream;
  context: PDFContext;
  parseName(): PDFName;
  parseObject(): PDFObject;
  parseDictOrStream(): PDFObject;
  parseHexString(): PDFObject;
  parseString(): PDFObject;
  parseArray(): PDFObject;
  parseNumberOrRef(): PDFObject;
  parseRawNumber(): number;
  skipWhitespaceAndComments(): void;
}

// The build of pdf-lib that Node loads (its "main": CommonJS), whose parser these methods belong to.
const load = createRequire(import.meta.url);
const { default: BaseParser } = load('pdf-lib/cjs/core/parser/BaseParser.js') as {
  default: { prototype: Record<string, unknown> };
};
const { default: PDFObjectParser } = load('pdf-lib/cjs/core/parser/PDFObjectParser.js') as {
  default: { prototype: Record<string, unknown> };
};
const lib = load('pdf-lib') as typeof PdfLib;
const { PDFName: Name } = lib;
const { IsWhitespace } = load('pdf-lib/cjs/core/syntax/Whitespace.js') as { IsWhitespace: Uint8Array };
const { IsDelimiter } = load('pdf-lib/cjs/core/syntax/Delimiters.js') as { IsDelimiter: Uint8Array };
const { IsDigit, IsNumeric } = load('pdf-lib/cjs/core/syntax/Numeric.js') as {
  IsDigit: Uint8Array;
  IsNumeric: Uint8Array;
};

const NEWLINE = 0x0a;
const SLASH = 0x2f;
const HASH = 0x23;
const PERIOD = 0x2e;

const text = (bytes: Uint8Array, start: number, end: number): string =>
  end - start === 1
    ? String.fromCharCode(bytes[start] ?? 0)
    : String.fromCharCode.apply(null, bytes.subarray(start, end) as unknown as number[]);

/**
 * Names by their bytes in the file, for names without a #-escape (whose decoded text is their bytes),
 * found by a hash of the bytes computed while they are scanned and compared byte for byte, so that
 * a name seen before costs no string. The values are pdf-lib's own pooled instances, which it keeps
 * for the life of the process anyway; bounded, so that documents full of unique names cannot grow it
 * without end.
 */
interface KnownName {
  readonly raw: string;
  readonly name: PDFName;
}
const names = new Map<number, KnownName>();
const MAX_NAMES = 4096;

const sameBytes = (raw: string, bytes: Uint8Array, start: number, end: number): boolean => {
  if (raw.length !== end - start) return false;
  for (let i = 0; i < raw.length; i++) if (raw.charCodeAt(i) !== bytes[start + i]) return false;
  return true;
};

const originalParseName = PDFObjectParser.prototype.parseName as (this: Parser) => PDFName;
PDFObjectParser.prototype.parseName = function parseName(this: Parser): PDFName {
  const stream = this.bytes;
  const { bytes, length } = stream;
  if (bytes[stream.idx] !== SLASH) return originalParseName.call(this);
  const start = stream.idx + 1;
  let end = start;
  let escaped = false;
  // FNV-1a over the name's bytes.
  let hash = 0x811c9dc5;
  for (; end < length; end++) {
    const byte = bytes[end] ?? 0;
    if (IsWhitespace[byte] || IsDelimiter[byte]) break;
    if (byte === HASH) escaped = true;
    hash = Math.imul(hash ^ byte, 0x01000193);
  }
  // Whitespace (newlines included) ends a name: the line does not change.
  stream.column += end - stream.idx;
  stream.idx = end;
  if (escaped) return Name.of(text(bytes, start, end));
  const known = names.get(hash);
  if (known && sameBytes(known.raw, bytes, start, end)) return known.name;
  const raw = text(bytes, start, end);
  const name = Name.of(raw);
  if (names.size >= MAX_NAMES) names.clear();
  names.set(hash, { raw, name });
  return name;
};

const originalParseRawNumber = BaseParser.prototype.parseRawNumber as (this: Parser) => number;
BaseParser.prototype.parseRawNumber = function parseRawNumber(this: Parser): number {
  const stream = this.bytes;
  const { bytes, length } = stream;
  // A plain integer of up to 15 digits (exact in a double) followed by something not numeric.
  let end = stream.idx;
  let value = 0;
  while (end < length && IsDigit[bytes[end] ?? 0]) value = value * 10 + ((bytes[end++] ?? 0) - 0x30);
  const digits = end - stream.idx;
  const next = end < length ? (bytes[end] ?? 0) : -1;
  if (digits === 0 || digits > 15 || (next >= 0 && (IsNumeric[next] || next === PERIOD))) {
    return originalParseRawNumber.call(this);
  }
  stream.column += digits;
  stream.idx = end;
  return value;
};

BaseParser.prototype.skipWhitespace = function skipWhitespace(this: Parser): void {
  const stream = this.bytes;
  const { bytes, length } = stream;
  let { idx, line, column } = stream;
  while (idx < length) {
    const byte = bytes[idx] ?? 0;
    if (!IsWhitespace[byte]) break;
    idx++;
    if (byte === NEWLINE) {
      line += 1;
      column = 0;
    } else column += 1;
  }
  stream.idx = idx;
  stream.line = line;
  stream.column = column;
};

const LETTER_R = 0x52;
const LESS_THAN = 0x3c;
const LEFT_PAREN = 0x28;
const LEFT_BRACKET = 0x5b;

const originalParseObject = PDFObjectParser.prototype.parseObject as (this: Parser) => PDFObject;

/**
 * A dictionary (or stream) or an array, with where it starts and ends, so that an indirect object
 * nothing changes is written as it was read (`pristine-objects.ts`). Only these hold other objects.
 */
const parseContainer = (parser: Parser, dictionary: boolean): PDFObject => {
  const stream = parser.bytes;
  const start = stream.idx;
  enterParse();
  let object: PDFObject;
  try {
    object = dictionary ? parser.parseDictOrStream() : parser.parseArray();
  } finally {
    leaveParse();
  }
  recordParsed(parser.context, object, stream.bytes, start, stream.idx);
  return object;
};

/**
 * pdf-lib's `parseObject`, choosing by the first byte instead of trying the keywords true, false and
 * null first at every object. Each keyword it tries reads one byte before it fails, which moves the
 * column (not the position) by one: three for an object that is not a keyword, kept here. Keywords,
 * and anything it would throw on, go to pdf-lib's own code.
 */
PDFObjectParser.prototype.parseObject = function parseObject(this: Parser): PDFObject {
  this.skipWhitespaceAndComments();
  const stream = this.bytes;
  if (stream.idx >= stream.length) return originalParseObject.call(this);
  const byte = stream.bytes[stream.idx] ?? 0;
  if (byte === SLASH) {
    stream.column += 3;
    return this.parseName();
  }
  if (IsNumeric[byte]) {
    stream.column += 3;
    return this.parseNumberOrRef();
  }
  if (byte === LESS_THAN) {
    stream.column += 3;
    return stream.bytes[stream.idx + 1] === LESS_THAN ? parseContainer(this, true) : this.parseHexString();
  }
  if (byte === LEFT_BRACKET) {
    stream.column += 3;
    return parseContainer(this, false);
  }
  if (byte === LEFT_PAREN) {
    stream.column += 3;
    return this.parseString();
  }
  // true, false, null, or not an object at all.
  return originalParseObject.call(this);
};

/**
 * References by object and generation number: pdf-lib's own pooled instances (which it keeps for the
 * life of the process), found without building its pool's string key `"12 0 R"` for each. Bounded.
 */
const refs = new Map<number, PDFRef>();
const MAX_REFS = 65536;
const refOf = (objectNumber: number, generation: number): PDFRef => {
  if (
    !Number.isInteger(objectNumber) ||
    !Number.isInteger(generation) ||
    objectNumber < 0 ||
    objectNumber >= 2 ** 32 ||
    generation < 0 ||
    generation >= 2 ** 16
  ) {
    return lib.PDFRef.of(objectNumber, generation);
  }
  const key = objectNumber * 65536 + generation;
  let ref = refs.get(key);
  if (!ref) {
    ref = lib.PDFRef.of(objectNumber, generation);
    if (refs.size >= MAX_REFS) refs.clear();
    refs.set(key, ref);
  }
  return ref;
};

/** pdf-lib's `parseNumberOrRef`, step for step (its lookahead included), references from `refOf`. */
PDFObjectParser.prototype.parseNumberOrRef = function parseNumberOrRef(this: Parser): PDFObject {
  const stream = this.bytes;
  const first = this.parseRawNumber();
  this.skipWhitespaceAndComments();
  const lookaheadStart = stream.idx;
  if (IsDigit[stream.bytes[stream.idx] ?? -1]) {
    const second = this.parseRawNumber();
    this.skipWhitespaceAndComments();
    if (stream.bytes[stream.idx] === LETTER_R) {
      // 'R' is not a newline: the column moves, as pdf-lib's assertNext would.
      stream.idx += 1;
      stream.column += 1;
      return refOf(first, second);
    }
  }
  // As pdf-lib's moveTo: the position goes back, the line and column do not.
  stream.idx = lookaheadStart;
  return lib.PDFNumber.of(first);
};

const GREATER_THAN = 0x3e;
// pdf-lib's parseDict looks these up (a regular expression each) for every dictionary it parses.
const TYPE = Name.of('Type');
const CATALOG = Name.of('Catalog');
const PAGES = Name.of('Pages');
const PAGE = Name.of('Page');

/** pdf-lib's `parseDict`, step for step, with its four constant names looked up once. */
PDFObjectParser.prototype.parseDict = function parseDict(this: Parser): PDFDict {
  const stream = this.bytes;
  stream.assertNext(LESS_THAN);
  stream.assertNext(LESS_THAN);
  this.skipWhitespaceAndComments();
  const dict = new Map<PDFName, PDFObject>();
  while (
    stream.idx < stream.length &&
    stream.bytes[stream.idx] !== GREATER_THAN &&
    stream.bytes[stream.idx + 1] !== GREATER_THAN
  ) {
    const key = this.parseName();
    const value = this.parseObject();
    dict.set(key, value);
    this.skipWhitespaceAndComments();
  }
  this.skipWhitespaceAndComments();
  stream.assertNext(GREATER_THAN);
  stream.assertNext(GREATER_THAN);
  const type = dict.get(TYPE);
  if (type === CATALOG) return lib.PDFCatalog.fromMapWithContext(dict, this.context);
  if (type === PAGES) return lib.PDFPageTree.fromMapWithContext(dict, this.context);
  if (type === PAGE) return lib.PDFPageLeaf.fromMapWithContext(dict, this.context);
  return lib.PDFDict.fromMapWithContext(dict, this.context);
};

const { PDFHexString: HexString } = lib;

/** pdf-lib's `parseHexString`: the characters between `<` and `>` as they are (latin1), the position as `next()` counts it. */
PDFObjectParser.prototype.parseHexString = function parseHexString(this: Parser) {
  const stream = this.bytes;
  stream.assertNext(LESS_THAN);
  const { bytes, length } = stream;
  const start = stream.idx;
  const found = bytes.indexOf(GREATER_THAN, start);
  const end = found < 0 ? length : found;
  const digits = bytes.subarray(start, end);
  let lastNewline = -1;
  for (let at = digits.indexOf(NEWLINE); at >= 0; at = digits.indexOf(NEWLINE, at + 1)) {
    stream.line += 1;
    lastNewline = at;
  }
  stream.column = lastNewline < 0 ? stream.column + digits.length : digits.length - lastNewline - 1;
  stream.idx = end;
  const value = Buffer.from(digits.buffer, digits.byteOffset, digits.length).toString('latin1');
  stream.assertNext(GREATER_THAN);
  return HexString.of(value);
};

const { default: ByteStream } = load('pdf-lib/cjs/core/parser/ByteStream.js') as {
  default: { of(bytes: Uint8Array): unknown; fromPDFRawStream(stream: PDFRawStream): unknown };
};
const FILTER = Name.of('Filter');
const FLATE_DECODE = Name.of('FlateDecode');
const originalFromPDFRawStream = ByteStream.fromPDFRawStream.bind(ByteStream);
ByteStream.fromPDFRawStream = function fromPDFRawStream(stream: PDFRawStream): unknown {
  if (stream.dict.lookup(FILTER) === FLATE_DECODE) {
    const inflated = inflateWithinBudget(stream.contents);
    if (inflated) return ByteStream.of(inflated);
  }
  return originalFromPDFRawStream(stream);
};
