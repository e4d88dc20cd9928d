import type { Font } from '@pdf-lib/fontkit';

/** The internals of @pdf-lib/fontkit's TrueType subset that the fix touches. */
interface TrueTypeSubset {
  glyf: Uint8Array[];
  offset: number;
  _addGlyph: (this: TrueTypeSubset, glyphId: number) => number;
}

interface BufferLike {
  concat(list: Uint8Array[]): Uint8Array;
  alloc(size: number): Uint8Array;
}

const FIXED = Symbol.for('esign.template.truetype-subset-padded');

const isTrueTypeSubset = (value: unknown): value is TrueTypeSubset & Record<symbol, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as Partial<TrueTypeSubset>)._addGlyph === 'function';

/**
 * @pdf-lib/fontkit 1.1 writes a subset's `loca` table in the short format (offsets halved) without
 * padding glyph records to an even length, so one odd-length glyph shifts every later glyph by a byte:
 * viewers then draw some letters and silently drop the rest, while text extraction still works.
 * Upstream fontkit fixed this in 1.8 (foliojs/fontkit#191); pdf-lib still depends on the old fork.
 * Padding each glyph record to an even length (a trailing zero byte, which TrueType allows) makes the
 * short offsets exact. Applied once, to the subset class shared by all TrueType fonts.
 */
export const fixTrueTypeSubsets = (font: Font): void => {
  const prototype: unknown = Object.getPrototypeOf(font.createSubset());
  if (!isTrueTypeSubset(prototype) || prototype[FIXED]) return;
  const addGlyph = prototype._addGlyph;
  prototype._addGlyph = function (this: TrueTypeSubset, glyphId: number): number {
    const index = addGlyph.call(this, glyphId);
    const record = this.glyf[index];
    if (record && record.length % 2 === 1) {
      // The library's own Buffer class (a browser polyfill): its streams accept nothing else.
      const BufferClass = record.constructor as unknown as BufferLike;
      this.glyf[index] = BufferClass.concat([record, BufferClass.alloc(1)]);
      this.offset += 1;
    }
    return index;
  };
  prototype[FIXED] = true;
};
