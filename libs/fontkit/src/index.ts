// @pdf-lib/fontkit's shapers for Indic and other complex scripts are compiled generators that expect
// the regenerator runtime as a global; without it, laying out Devanagari throws.
import 'regenerator-runtime/runtime.js';
import * as fontkitModule from '@pdf-lib/fontkit';
import type { Font } from '@pdf-lib/fontkit';

/**
 * @pdf-lib/fontkit as both services that render text use it, with its two known faults mended once
 * here: the missing regenerator runtime (above) and unpadded glyphs in TrueType subsets (below).
 */

// The package is UMD: under Node's ESM loader its API sits on `default`.
const fontkit = (fontkitModule as unknown as { default?: typeof fontkitModule }).default ?? fontkitModule;

interface TrueTypeSubsetInternals {
  glyf: Uint8Array[];
  offset: number;
  _addGlyph: (this: TrueTypeSubsetInternals, gid: number) => number;
}

const PADDED = Symbol.for('esign.fontkit.paddedGlyphs');

/**
 * @pdf-lib/fontkit 1.1's TrueType subsetter copies glyph records without padding them, so after the
 * first odd-length glyph every offset in a short-format `loca` table is wrong: viewers draw some letters
 * and silently drop the rest, while text extraction still works. Upstream fontkit fixed this in 1.8;
 * pdf-lib still depends on the old fork. Each record is padded to 4 bytes, as the TrueType spec
 * recommends. Patched once, on the subset class shared by all TrueType fonts.
 */
const padSubsetGlyphs = (font: Font): void => {
  const proto = Object.getPrototypeOf(font.createSubset()) as TrueTypeSubsetInternals & { [PADDED]?: true };
  if (proto[PADDED] || typeof proto._addGlyph !== 'function') return;
  const addGlyph = proto._addGlyph;
  proto._addGlyph = function (this: TrueTypeSubsetInternals, gid: number): number {
    const index = addGlyph.call(this, gid);
    const record = this.glyf[index];
    const pad = record ? (4 - (record.length % 4)) % 4 : 0;
    if (record && pad) {
      // The subsetter's encoder only takes its own Buffer class (a polyfill), so allocate through it.
      const BufferClass = record.constructor as unknown as { alloc(size: number): Uint8Array };
      const padded = BufferClass.alloc(record.length + pad);
      padded.set(record);
      this.glyf[index] = padded;
      this.offset += pad;
    }
    return index;
  };
  proto[PADDED] = true;
};

/** Parse a font file, with subsets that embed every glyph correctly. */
export const openFont = (bytes: Uint8Array): Font => {
  const font = fontkit.create(bytes);
  padSubsetGlyphs(font);
  return font;
};

/** For pdf-lib's `registerFontkit`. */
export { fontkit };
export type { Font };
