import type { FontKey, FontSet } from './fonts';

/** A stretch of text drawn with one font. */
export interface FontRun {
  readonly text: string;
  readonly font: FontKey;
}

/** Text direction of a word, for placing right-to-left words in a left-to-right line. */
export type Direction = 'ltr' | 'rtl' | 'neutral';

const segmenter = new Intl.Segmenter('en', { granularity: 'grapheme' });
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/u;
const NEUTRAL = /^[\s\p{P}\p{S}\p{N}]+$/u;
const RTL = /[\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Syriac}\p{Script=Thaana}]/u;
const LETTER = /\p{L}/u;

/** Thrown when no font can draw a character. */
export class UndrawableText extends Error {
  override readonly name = 'UndrawableText';
  constructor(readonly character: string) {
    super(`no font can draw ${describeCharacter(character)}`);
  }
}

/** `"€" (U+20AC)`: the character and its code points, for error messages. */
export const describeCharacter = (character: string): string => {
  const codes = [...character].map(
    (c) => `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`,
  );
  const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]+$/u.test(character);
  return printable ? `"${character}" (${codes.join(' ')})` : codes.join(' ');
};

export const graphemes = (text: string): string[] => Array.from(segmenter.segment(text), (s) => s.segment);

/** The direction a word reads in: right-to-left when it holds Arabic or Hebrew letters. */
export const directionOf = (text: string): Direction =>
  RTL.test(text) ? 'rtl' : LETTER.test(text) ? 'ltr' : 'neutral';

const covers = (fonts: FontSet, key: FontKey, codePoints: number[]): boolean => {
  const { coverage } = fonts.get(key);
  return codePoints.every((cp) => coverage.has(cp));
};

/** True when the first font of the chain draws every character and none is invisible (most text). */
const drawnByPrimary = (text: string, coverage: ReadonlySet<number>): boolean => {
  for (const c of text) {
    const cp = c.codePointAt(0) ?? 0;
    if (!coverage.has(cp) || (cp > 0x7f && IGNORABLE.test(c))) return false;
  }
  return true;
};

/**
 * Split text into runs, each drawn with the first font of the chain that has every character of a
 * grapheme. Punctuation, digits and spaces stay in the font of the run they are in (an Arabic comma
 * after an Arabic word is shaped with it). Invisible format characters a font lacks are dropped; a
 * visible character no font has throws `UndrawableText`.
 */
export const splitIntoFontRuns = (text: string, bold: boolean, fonts: FontSet): FontRun[] => {
  const chain = fonts.chain(bold);
  const primary = chain[0];
  if (primary && drawnByPrimary(text, fonts.get(primary).coverage))
    return text ? [{ text, font: primary }] : [];
  const runs: { text: string; font: FontKey }[] = [];
  let current: FontKey | undefined;
  for (const grapheme of graphemes(text)) {
    const codePoints = [...grapheme].map((c) => c.codePointAt(0) ?? 0);
    const visible = codePoints.filter((cp) => !IGNORABLE.test(String.fromCodePoint(cp)));
    if (visible.length === 0) {
      // Joiners and marks that steer shaping: keep them only where the current font knows them.
      if (current && covers(fonts, current, codePoints)) {
        const last = runs[runs.length - 1];
        if (last) last.text += grapheme;
      }
      continue;
    }
    let font: FontKey | undefined;
    if (current && NEUTRAL.test(grapheme) && covers(fonts, current, visible)) font = current;
    font ??= chain.find((key) => covers(fonts, key, visible));
    if (!font) throw new UndrawableText(grapheme);
    const kept = [...grapheme].filter(
      (c) => !IGNORABLE.test(c) || covers(fonts, font, [c.codePointAt(0) ?? 0]),
    );
    const last = runs[runs.length - 1];
    if (last && last.font === font) last.text += kept.join('');
    else runs.push({ text: kept.join(''), font });
    current = font;
  }
  return runs;
};

/** The first character no font can draw, or undefined when all of `text` can be drawn. */
export const findUndrawable = (text: string, fonts: FontSet): string | undefined => {
  try {
    splitIntoFontRuns(text, false, fonts);
    splitIntoFontRuns(text, true, fonts);
    return undefined;
  } catch (err) {
    if (err instanceof UndrawableText) return err.character;
    throw err;
  }
};
