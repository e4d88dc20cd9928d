import { randomInt } from 'node:crypto';
import { deflateSync } from 'node:zlib';
import { PDFName, PDFString } from 'pdf-lib';
import type { PDFContext, PDFRef } from 'pdf-lib';
import type { Glyph } from '@pdf-lib/fontkit';
import type { FontFace } from './font-library';

/** A TrueType font being embedded into one document as a glyph subset (Type0 / CIDFontType2, Identity-H). */
export interface TrueTypeEmbedding {
  /** The Type0 font dictionary (written by `finish`). */
  readonly ref: PDFRef;
  /** The 2-byte code (4 hex digits) of a glyph, adding it to the subset. */
  code(glyph: Glyph): string;
  /** Write the subset font program, widths, ToUnicode map and font dictionaries. */
  finish(): Promise<void>;
}

const utf16Hex = (codePoints: readonly number[]): string =>
  Buffer.from(String.fromCodePoint(...codePoints), 'utf16le')
    .swap16()
    .toString('hex');

const toUnicodeCMap = (entries: readonly [number, string][]): string => {
  const blocks: string[] = [];
  for (let i = 0; i < entries.length; i += 100) {
    const block = entries.slice(i, i + 100);
    blocks.push(
      `${block.length} beginbfchar\n${block.map(([cid, hex]) => `<${cid.toString(16).padStart(4, '0')}> <${hex}>`).join('\n')}\nendbfchar`,
    );
  }
  return `/CIDInit /ProcSet findresource begin
12 dict begin
begincmap
/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def
/CMapName /Adobe-Identity-UCS def
/CMapType 2 def
1 begincodespacerange
<0000> <FFFF>
endcodespacerange
${blocks.join('\n')}
endcmap
CMapName currentdict /CMap defineresource pop
end
end`;
};

const subsetTag = () => Array.from({ length: 6 }, () => String.fromCharCode(65 + randomInt(26))).join('');

/**
 * Embed only the glyphs a document uses, with glyph-level control (the callers position each glyph
 * themselves, applying the font's GPOS offsets that pdf-lib's text drawing drops). fontkit builds the
 * subset font program; this writes the PDF side: widths of exactly the glyphs used (contextual
 * alternates included), and a ToUnicode map from each glyph to the characters it stands for, so that
 * the text can be searched and copied.
 */
export const createTrueTypeEmbedding = (context: PDFContext, face: FontFace): TrueTypeEmbedding => {
  const { font } = face;
  const subset = font.createSubset();
  const unicode = new Map<number, string>();
  const ref = context.nextRef();
  return {
    ref,
    code(glyph) {
      const cid = subset.includeGlyph(glyph);
      if (!unicode.has(cid) && glyph.codePoints.length > 0) unicode.set(cid, utf16Hex(glyph.codePoints));
      return cid.toString(16).padStart(4, '0');
    },
    async finish() {
      const program = await new Promise<Buffer>((resolve, reject) => {
        const chunks: Buffer[] = [];
        const stream = subset.encodeStream();
        stream.on('data', (chunk: Uint8Array) => chunks.push(Buffer.from(chunk)));
        stream.on('end', () => resolve(Buffer.concat(chunks)));
        (stream as unknown as { on(event: 'error', cb: (err: unknown) => void): void }).on('error', reject);
      });
      // After encoding, the subset also holds the components of composite glyphs.
      const oldIds = (subset as unknown as { glyphs: number[] }).glyphs;
      const scale = 1000 / font.unitsPerEm;
      const widths = oldIds.map((gid) => Math.round(font.getGlyph(gid).advanceWidth * scale));
      const baseFont = `${subsetTag()}+${(font.postscriptName ?? face.name).replace(/[^A-Za-z0-9-]/g, '')}`;
      const fontFile = context.register(
        context.stream(deflateSync(program), { Filter: 'FlateDecode', Length1: program.length }),
      );
      const { bbox } = font;
      const descriptor = context.register(
        context.obj({
          Type: 'FontDescriptor',
          FontName: baseFont,
          // Symbolic: glyphs are addressed by CID, not by a standard character set.
          Flags: 4,
          FontBBox: [bbox.minX, bbox.minY, bbox.maxX, bbox.maxY].map((v) => Math.round(v * scale)),
          ItalicAngle: font.italicAngle,
          Ascent: Math.round(font.ascent * scale),
          Descent: Math.round(font.descent * scale),
          CapHeight: Math.round((font.capHeight || font.ascent) * scale),
          StemV: 80,
          FontFile2: fontFile,
        }),
      );
      const cidFont = context.obj({
        Type: 'Font',
        Subtype: 'CIDFontType2',
        BaseFont: baseFont,
        FontDescriptor: descriptor,
        W: [0, widths],
        CIDToGIDMap: 'Identity',
      });
      cidFont.set(
        PDFName.of('CIDSystemInfo'),
        context.obj({ Registry: PDFString.of('Adobe'), Ordering: PDFString.of('Identity'), Supplement: 0 }),
      );
      const cmapText = toUnicodeCMap([...unicode.entries()].sort((a, b) => a[0] - b[0]));
      const cmap = context.register(
        context.stream(deflateSync(Buffer.from(cmapText, 'latin1')), { Filter: 'FlateDecode' }),
      );
      context.assign(
        ref,
        context.obj({
          Type: 'Font',
          Subtype: 'Type0',
          BaseFont: baseFont,
          Encoding: 'Identity-H',
          DescendantFonts: [context.register(cidFont)],
          ToUnicode: cmap,
        }),
      );
    },
  };
};
