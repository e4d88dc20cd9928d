import { PDFName, StandardFonts } from 'pdf-lib';
import type { PDFDocument, PDFFont, PDFPage, PDFRef } from 'pdf-lib';
import { createTrueTypeEmbedding } from './embed-truetype-font';
import type { TrueTypeEmbedding } from './embed-truetype-font';
import type { FontFace } from './font-library';
import { standardFontMetrics } from './standard-font-metrics';
import type { LaidOutLine, TextGap, TextPiece } from './layout-text';
import type { Matrix } from './page-frame';

/** A standard PDF font: nothing to embed, WinAnsi text only. */
export interface StandardFace {
  readonly name: string;
  readonly standard: StandardFonts;
}

/** Text in a standard font: pdf-lib encodes it (WinAnsi) and measures it. */
export interface StandardPiece {
  readonly face: StandardFace;
  readonly text: string;
  /** Advance width at font size 1. */
  readonly width: number;
  /** The text encoded (`<…>`), when known already (fixed text drawn on every page). */
  readonly hex?: string;
}

/** A line ready to draw: pieces in visual order, widths at font size 1. */
export interface DrawableLine extends Omit<LaidOutLine, 'pieces'> {
  readonly pieces: readonly (TextPiece | StandardPiece | TextGap)[];
}

export const HELVETICA: StandardFace = { name: 'Helvetica', standard: StandardFonts.Helvetica };
export const HELVETICA_BOLD: StandardFace = { name: 'Helvetica-Bold', standard: StandardFonts.HelveticaBold };

/** Format a number for a content stream: no exponent, at most 4 decimals. */
export const num = (n: number): string => {
  if (Number.isInteger(n)) return String(n);
  const fixed = n.toFixed(4);
  // Trailing zeros and a bare point off, without regular expressions (this runs for every text line).
  let end = fixed.length;
  while (fixed.charCodeAt(end - 1) === 48) end--;
  if (fixed.charCodeAt(end - 1) === 46) end--;
  const trimmed = fixed.slice(0, end);
  return trimmed === '-0' ? '0' : trimmed;
};

export const matrixOps = (m: Matrix): string => `${m.map(num).join(' ')} cm`;

/** `#rrggbb` -> fill colour operator. */
export const fillColorOps = (hex: string): string => {
  const v = Number.parseInt(hex.slice(1), 16);
  return `${num(((v >> 16) & 255) / 255)} ${num(((v >> 8) & 255) / 255)} ${num((v & 255) / 255)} rg`;
};

/**
 * The fonts of one document: standard fonts through pdf-lib, TrueType fonts as subsets embedded by
 * this service (glyph by glyph). `finish` must run before the document is saved.
 */
export interface DocumentFonts {
  standard(face: StandardFace): PDFFont;
  trueType(face: FontFace): TrueTypeEmbedding;
  finish(): Promise<void>;
}

export const createDocumentFonts = (doc: PDFDocument): DocumentFonts => {
  const standard = new Map<StandardFace, PDFFont>();
  const trueType = new Map<FontFace, TrueTypeEmbedding>();
  return {
    standard(face) {
      let font = standard.get(face);
      if (!font) {
        font = doc.embedStandardFont(face.standard);
        standard.set(face, font);
      }
      return font;
    },
    trueType(face) {
      let embedding = trueType.get(face);
      if (!embedding) {
        embedding = createTrueTypeEmbedding(doc.context, face);
        trueType.set(face, embedding);
      }
      return embedding;
    },
    async finish() {
      await Promise.all([...trueType.values()].map((embedding) => embedding.finish()));
    },
  };
};

/** Operators for one page, appended as a new content stream (pdf-lib wraps the old ones in q/Q). */
export interface PageContent {
  push(...ops: string[]): void;
  xObject(ref: PDFRef): string;
  /** Draw a laid-out line with the left end of its baseline at (x, y) in the current space. */
  drawLine(line: DrawableLine, options: { x: number; y: number; size: number }): void;
  /** Add the operators to the page. */
  commit(): void;
}

const isStandardPiece = (piece: TextPiece | StandardPiece): piece is StandardPiece =>
  'standard' in piece.face;

/** Operators drawn with fonts and images named by `fontName` and `xObjectName` (resources of a page or a form). */
const createContent = (
  fonts: DocumentFonts,
  fontName: (ref: PDFRef) => string,
  xObjectName: (ref: PDFRef) => string,
  commit: (ops: string[]) => void,
): PageContent => {
  const ops: string[] = [];
  return {
    push: (...more) => void ops.push(...more),
    xObject: xObjectName,
    drawLine(line, { x, y, size }) {
      let pen = x;
      for (const piece of line.pieces) {
        if (!piece.face) {
          pen += piece.width * size;
          continue;
        }
        if (isStandardPiece(piece)) {
          const font = fonts.standard(piece.face);
          const hex = piece.hex ?? standardFontMetrics(font).encodeText(piece.text);
          ops.push(`BT ${fontName(font.ref)} ${num(size)} Tf 1 0 0 1 ${num(pen)} ${num(y)} Tm ${hex} Tj ET`);
          pen += piece.width * size;
          continue;
        }
        // Glyph by glyph, so that GPOS offsets (Arabic cursive joins, marks, kerning) are honoured.
        const embedding = fonts.trueType(piece.face);
        const k = size / piece.face.font.unitsPerEm;
        const parts = [`BT ${fontName(embedding.ref)} ${num(size)} Tf`];
        piece.glyphs.forEach((glyph, i) => {
          const position = piece.positions[i];
          const gx = pen + (position?.xOffset ?? 0) * k;
          const gy = y + (position?.yOffset ?? 0) * k;
          parts.push(`1 0 0 1 ${num(gx)} ${num(gy)} Tm <${embedding.code(glyph)}> Tj`);
          pen += (position?.xAdvance ?? glyph.advanceWidth) * k;
        });
        parts.push('ET');
        ops.push(parts.join(' '));
      }
    },
    commit() {
      commit(ops);
      ops.length = 0;
    },
  };
};

/** A name per resource, made once. */
const namer = (make: (ref: PDFRef) => string) => {
  const names = new Map<PDFRef, string>();
  return (ref: PDFRef) => {
    let name = names.get(ref);
    if (!name) {
      name = make(ref);
      names.set(ref, name);
    }
    return name;
  };
};

export const createPageContent = (page: PDFPage, fonts: DocumentFonts): PageContent =>
  createContent(
    fonts,
    namer((ref) => page.node.newFontDictionary('Esf', ref).toString()),
    namer((ref) => page.node.newXObject('Esx', ref).toString()),
    (ops) => {
      if (ops.length === 0) return;
      // Operators are ASCII; pdf-lib would copy a string into bytes one character at a time.
      const stream = page.doc.context.stream(Buffer.from(ops.join('\n'), 'latin1'));
      page.node.addContentStream(page.doc.context.register(stream));
    },
  );

/**
 * A form XObject (an annotation's appearance stream): `width` x `height` points with the origin at its
 * bottom-left corner, its own resources, turned by `matrix` (a rotation, no translation) as a widget on
 * a rotated page needs. `commit` registers it; `ref` is then its reference.
 */
export const createFormContent = (
  doc: PDFDocument,
  fonts: DocumentFonts,
  options: { width: number; height: number; matrix?: Matrix },
): PageContent & { readonly ref: () => PDFRef } => {
  const { context } = doc;
  const fontDict = context.obj({});
  const xObjectDict = context.obj({});
  let count = 0;
  let registered: PDFRef | undefined;
  const content = createContent(
    fonts,
    namer((ref) => {
      const name = `Esf${++count}`;
      fontDict.set(PDFName.of(name), ref);
      return `/${name}`;
    }),
    namer((ref) => {
      const name = `Esx${++count}`;
      xObjectDict.set(PDFName.of(name), ref);
      return `/${name}`;
    }),
    (ops) => {
      const resources = context.obj({});
      if (fontDict.keys().length > 0) resources.set(PDFName.of('Font'), fontDict);
      if (xObjectDict.keys().length > 0) resources.set(PDFName.of('XObject'), xObjectDict);
      const stream = context.stream(Buffer.from(ops.join('\n'), 'latin1'), {
        Type: 'XObject',
        Subtype: 'Form',
        BBox: [0, 0, options.width, options.height],
        ...(options.matrix ? { Matrix: [...options.matrix] } : {}),
        Resources: resources,
      });
      registered = context.register(stream);
    },
  );
  return {
    ...content,
    ref() {
      if (!registered) content.commit();
      if (!registered) throw new Error('appearance stream not registered');
      return registered;
    },
  };
};
