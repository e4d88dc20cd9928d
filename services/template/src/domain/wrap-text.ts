import type { FontKey, FontSet } from './fonts';
import type { Inline } from './inline';
import { directionOf, graphemes, splitIntoFontRuns, type Direction } from './text-runs';

/** A run of text at a horizontal offset from the start of its line. */
export interface PlacedRun {
  readonly x: number;
  readonly text: string;
  readonly font: FontKey;
  readonly size: number;
}

/** One laid-out line. */
export interface TextLine {
  readonly runs: readonly PlacedRun[];
  readonly width: number;
}

export interface WrapOptions {
  readonly fonts: FontSet;
  readonly size: number;
  /** Width available for the line, in points. */
  readonly width: number;
  /** Style of spans that do not say. */
  readonly bold?: boolean;
}

interface MeasuredRun {
  text: string;
  font: FontKey;
  width: number;
}

/** A word (or a piece of a word too long for a line). */
interface Token {
  runs: MeasuredRun[];
  width: number;
  dir: Direction;
  /** False for the second and later pieces of a broken word: no space before them. */
  spaced: boolean;
}

const toWords = (inline: Inline, defaultBold: boolean): { text: string; bold: boolean }[][] => {
  const words: { text: string; bold: boolean }[][] = [];
  let current: { text: string; bold: boolean }[] = [];
  for (const span of inline) {
    span.text
      .replace(/\s+/gu, ' ')
      .split(' ')
      .forEach((piece, i) => {
        if (i > 0 && current.length > 0) {
          words.push(current);
          current = [];
        }
        if (piece) current.push({ text: piece, bold: span.bold ?? defaultBold });
      });
  }
  if (current.length > 0) words.push(current);
  return words;
};

const measureRuns = (
  runs: { text: string; font: FontKey }[],
  fonts: FontSet,
  size: number,
): MeasuredRun[] => {
  const merged: { text: string; font: FontKey }[] = [];
  for (const run of runs) {
    const last = merged[merged.length - 1];
    if (last && last.font === run.font) last.text += run.text;
    else merged.push({ ...run });
  }
  return merged.map((r) => ({ ...r, width: fonts.measure(r.text, r.font, size) }));
};

const sumWidths = (runs: MeasuredRun[]) => runs.reduce((w, r) => w + r.width, 0);

/**
 * Break a word wider than the line into pieces that fit, between graphemes. Pieces are filled by the
 * sum of the graphemes' widths (cached, so a 5000-character value costs no more than its characters),
 * then measured whole; shaping can make a piece a little wider, and then it gives back graphemes.
 */
const breakToken = (token: Token, maxWidth: number, fonts: FontSet, size: number): Token[] => {
  const cells = token.runs.flatMap((run) =>
    graphemes(run.text).map((g) => ({ g, font: run.font, width: fonts.measure(g, run.font, size) })),
  );
  const toRuns = (slice: typeof cells): MeasuredRun[] => {
    const runs: { text: string; font: FontKey }[] = [];
    for (const cell of slice) {
      const last = runs[runs.length - 1];
      if (last && last.font === cell.font) last.text += cell.g;
      else runs.push({ text: cell.g, font: cell.font });
    }
    return runs.map((r) => ({ ...r, width: fonts.measure(r.text, r.font, size) }));
  };
  const pieces: Token[] = [];
  let start = 0;
  while (start < cells.length) {
    let end = start;
    let width = 0;
    while (end < cells.length && (end === start || width + (cells[end]?.width ?? 0) <= maxWidth)) {
      width += cells[end]?.width ?? 0;
      end += 1;
    }
    let runs = toRuns(cells.slice(start, end));
    while (end - start > 1 && sumWidths(runs) > maxWidth) {
      end -= 1;
      runs = toRuns(cells.slice(start, end));
    }
    pieces.push({ runs, width: sumWidths(runs), dir: token.dir, spaced: start === 0 && token.spaced });
    start = end;
  }
  return pieces;
};

/**
 * Words of right-to-left scripts in a left-to-right line: a stretch of such words (with the neutral
 * words between them) is read right to left, so it is placed in reverse order. Each word's glyphs are
 * already in visual order (the font layout reverses right-to-left runs).
 */
const visualOrder = (line: Token[]): Token[] => {
  const out: Token[] = [];
  let i = 0;
  while (i < line.length) {
    const token = line[i];
    if (!token) break;
    if (token.dir !== 'rtl') {
      out.push(token);
      i += 1;
      continue;
    }
    let end = i;
    for (let k = i + 1; k < line.length && line[k]?.dir !== 'ltr'; k++) if (line[k]?.dir === 'rtl') end = k;
    const segment = line.slice(i, end + 1);
    // The space before each reversed word is the one that followed it in reading order.
    const reversed = segment
      .map((tok, k) => ({
        ...tok,
        spaced: k === segment.length - 1 ? (segment[0]?.spaced ?? true) : (segment[k + 1]?.spaced ?? true),
      }))
      .reverse();
    const first = reversed[0];
    if (first) reversed[0] = { ...first, spaced: token.spaced };
    out.push(...reversed);
    i = end + 1;
  }
  return out;
};

/**
 * Lay out styled text in lines no wider than `width`: greedy, breaking at spaces, and inside words
 * that alone are wider than a line. Every character is drawn by a font that has it.
 */
export const wrapText = (inline: Inline, options: WrapOptions): TextLine[] => {
  const { fonts, size, width } = options;
  const tokens: Token[] = [];
  for (const word of toWords(inline, options.bold ?? false)) {
    const runs = measureRuns(
      word.flatMap((part) => splitIntoFontRuns(part.text, part.bold, fonts)),
      fonts,
      size,
    );
    const token: Token = {
      runs,
      width: sumWidths(runs),
      dir: directionOf(word.map((p) => p.text).join('')),
      spaced: true,
    };
    if (token.width > width) tokens.push(...breakToken(token, width, fonts, size));
    else tokens.push(token);
  }
  const space = fonts.measure(' ', 'sans', size);
  // Words are joined with a space only in fonts whose space is as wide as the gap laid out.
  const spaceFits = new Map<FontKey, boolean>();
  const joinsWithSpace = (font: FontKey) => {
    let fits = spaceFits.get(font);
    if (fits === undefined) {
      fits =
        font === 'sans' || font === 'sansBold'
          ? Math.abs(fonts.measure(' ', font, size) - space) < 1e-6
          : false;
      spaceFits.set(font, fits);
    }
    return fits;
  };
  const lines: Token[][] = [];
  let line: Token[] = [];
  let lineWidth = 0;
  for (const token of tokens) {
    const gap = line.length > 0 && token.spaced ? space : 0;
    if (line.length > 0 && lineWidth + gap + token.width > width) {
      lines.push(line);
      line = [token];
      lineWidth = token.width;
    } else {
      line.push(token);
      lineWidth += gap + token.width;
    }
  }
  if (line.length > 0) lines.push(line);

  return lines.map((tokensOfLine) => {
    const runs: PlacedRun[] = [];
    let x = 0;
    let previous: Token | undefined;
    visualOrder(tokensOfLine).forEach((token, i) => {
      const spaced = i > 0 && token.spaced;
      if (spaced) x += space;
      token.runs.forEach((run, k) => {
        const last = runs[runs.length - 1];
        // Left-to-right words in the same font are drawn as one string (far fewer text operations);
        // its advance is the sum of the words' and the spaces' advances, so positions do not change.
        const joinable =
          k === 0 && previous?.dir !== 'rtl' && token.dir !== 'rtl' && (!spaced || joinsWithSpace(run.font));
        if (last && last.font === run.font && (joinable || (k > 0 && token.dir !== 'rtl'))) {
          runs[runs.length - 1] = { ...last, text: `${last.text}${spaced && k === 0 ? ' ' : ''}${run.text}` };
        } else {
          runs.push({ x, text: run.text, font: run.font, size });
        }
        x += run.width;
      });
      previous = token;
    });
    return { runs, width: x };
  });
};
