import { createRequire } from 'node:module';
import type * as PdfLib from 'pdf-lib';
import type { PDFName, PDFObject } from 'pdf-lib';

/**
 * pdf-lib's `PDFDict.sizeInBytes` and `copyBytesInto`, with the same bytes, without copying the
 * dictionary's entries into a new array first (`entries()`) each time: writing a document measures
 * and then writes every dictionary, nested ones included, and those arrays were the largest cost of
 * writing a 20-page document whose pages list 60 fonts each.
 */
// The build of pdf-lib that Node loads (its "main": CommonJS), whose objects the signer writes.
const { PDFDict } = createRequire(import.meta.url)('pdf-lib') as typeof PdfLib;

const LESS_THAN = 0x3c;
const GREATER_THAN = 0x3e;
const NEWLINE = 0x0a;
const SPACE = 0x20;

type Entries = { dict: Map<PDFName, PDFObject> };
const proto = PDFDict.prototype as unknown as {
  sizeInBytes(this: Entries): number;
  copyBytesInto(this: Entries, buffer: Uint8Array, offset: number): number;
};

proto.sizeInBytes = function sizeInBytes(this: Entries): number {
  let size = 5;
  for (const [key, value] of this.dict) size += key.sizeInBytes() + value.sizeInBytes() + 2;
  return size;
};

proto.copyBytesInto = function copyBytesInto(this: Entries, buffer: Uint8Array, offset: number): number {
  const initialOffset = offset;
  buffer[offset++] = LESS_THAN;
  buffer[offset++] = LESS_THAN;
  buffer[offset++] = NEWLINE;
  for (const [key, value] of this.dict) {
    offset += key.copyBytesInto(buffer, offset);
    buffer[offset++] = SPACE;
    offset += value.copyBytesInto(buffer, offset);
    buffer[offset++] = NEWLINE;
  }
  buffer[offset++] = GREATER_THAN;
  buffer[offset++] = GREATER_THAN;
  return offset - initialOffset;
};
