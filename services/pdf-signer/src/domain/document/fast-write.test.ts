import { describe, expect, it } from 'vitest';
import { makePdf } from '@esign/testing';
import { PDFDict, PDFDocument } from 'pdf-lib';
import type { PDFObject } from 'pdf-lib';
// pdf-lib's ES build, which `fast-write` does not touch (it patches the CommonJS build Node loads).
import * as untouched from 'pdf-lib/es/index.js';
import './fast-write';

const bytesOf = (object: {
  sizeInBytes(): number;
  copyBytesInto(buffer: Uint8Array, at: number): number;
}) => {
  const buffer = new Uint8Array(object.sizeInBytes());
  expect(object.copyBytesInto(buffer, 0)).toBe(buffer.length);
  return Buffer.from(buffer).toString('latin1');
};

describe('fast-write (PDFDict written without copying its entries)', () => {
  it("writes every dictionary of a document byte for byte as pdf-lib's own code does", async () => {
    const bytes = await makePdf({ pages: 3, text: 'Page' });
    const ours = await PDFDocument.load(bytes);
    const theirs = await untouched.PDFDocument.load(bytes);
    const dicts = (objects: [unknown, unknown][]) =>
      objects
        .map(([ref, object]) => [String(ref), object] as const)
        .filter(([, object]) => object instanceof PDFDict || object instanceof untouched.PDFDict)
        .sort(([a], [b]) => a.localeCompare(b));
    const mine = dicts(ours.context.enumerateIndirectObjects());
    const reference = dicts(theirs.context.enumerateIndirectObjects());
    expect(mine.length).toBeGreaterThan(3);
    expect(mine.map(([ref, object]) => [ref, bytesOf(object as PDFObject)])).toEqual(
      reference.map(([ref, object]) => [ref, bytesOf(object as untouched.PDFObject)]),
    );
    expect(mine.every(([, object]) => object instanceof PDFDict)).toBe(true);
  });
});
