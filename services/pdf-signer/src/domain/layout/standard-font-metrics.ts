import type { PDFFont } from 'pdf-lib';

/** Measuring and encoding text in a standard PDF font (Helvetica…), with the numbers pdf-lib gives. */
export interface StandardFontMetrics {
  /** Advance width at `size`, kerning included: exactly `PDFFont.widthOfTextAtSize`. */
  widthOfTextAtSize(text: string, size: number): number;
  /** What one character adds to a line right after `previous` (its width and their kerning), at `size`. */
  advanceOf(char: string, previous: string | undefined, size: number): number;
  /** The text as a PDF hex string (`<…>`) in the font's encoding: exactly `PDFFont.encodeText`. */
  encodeText(text: string): string;
}

/**
 * Per-character tables, filled on first use from pdf-lib's own answers for one character (its
 * width, its code) and one pair (its kerning). pdf-lib looks every glyph and kerning pair up by name
 * on every call, which made measuring the audit page's words a tenth of a signature's CPU time.
 * AFM widths and kerning amounts are integers, so summing them here gives the same totals.
 */
const createMetrics = (font: PDFFont): StandardFontMetrics => {
  const widths = new Map<number, number>();
  const kerning = new Map<number, number>();
  const codes = new Map<number, string>();
  // At size 1000 pdf-lib's scale is exactly 1: the AFM units themselves.
  const units = (text: string) => font.widthOfTextAtSize(text, 1000);
  const widthOf = (char: string, codePoint: number) => {
    let width = widths.get(codePoint);
    if (width === undefined) {
      width = units(char);
      widths.set(codePoint, width);
    }
    return width;
  };
  const kerningOf = (left: string, leftPoint: number, right: string, rightPoint: number) => {
    const key = leftPoint * 0x110000 + rightPoint;
    let amount = kerning.get(key);
    if (amount === undefined) {
      amount = units(left + right) - widthOf(left, leftPoint) - widthOf(right, rightPoint);
      kerning.set(key, amount);
    }
    return amount;
  };
  return {
    widthOfTextAtSize(text, size) {
      let total = 0;
      let previous = '';
      let previousPoint = -1;
      for (const char of text) {
        const point = char.codePointAt(0) ?? 0;
        total += widthOf(char, point);
        if (previousPoint >= 0) total += kerningOf(previous, previousPoint, char, point);
        previous = char;
        previousPoint = point;
      }
      return total * (size / 1000);
    },
    advanceOf(char, previous, size) {
      const point = char.codePointAt(0) ?? 0;
      let total = widthOf(char, point);
      if (previous !== undefined) total += kerningOf(previous, previous.codePointAt(0) ?? 0, char, point);
      return total * (size / 1000);
    },
    encodeText(text) {
      let hex = '';
      for (const char of text) {
        const point = char.codePointAt(0) ?? 0;
        let code = codes.get(point);
        if (code === undefined) {
          code = font.encodeText(char).toString().slice(1, -1);
          codes.set(point, code);
        }
        hex += code;
      }
      return `<${hex}>`;
    },
  };
};

const byFontName = new Map<string, StandardFontMetrics>();

/** The metrics of a standard font, shared by every document that uses the font (keyed by its name). */
export const standardFontMetrics = (font: PDFFont): StandardFontMetrics => {
  let metrics = byFontName.get(font.name);
  if (!metrics) {
    metrics = createMetrics(font);
    byFontName.set(font.name, metrics);
  }
  return metrics;
};
