import type { Glyph, GlyphPosition } from '@pdf-lib/fontkit';
import type { Font } from '@esign/fontkit';
import type { FontChains, FontFace, ScriptClass } from './font-library';

/**
 * A piece of a line drawn with one font, shaped by fontkit: glyphs in visual order (right-to-left
 * runs come out reversed) with their positions (kerning, cursive attachment, marks) in font units.
 */
export interface TextPiece {
  readonly face: FontFace;
  readonly text: string;
  readonly glyphs: readonly Glyph[];
  readonly positions: readonly GlyphPosition[];
  /** Advance width at font size 1. */
  readonly width: number;
}

/** Space between words, at font size 1. */
export interface TextGap {
  readonly face?: undefined;
  readonly width: number;
}

/** One line of text, split into font runs and put in visual (left to right) order. */
export interface LaidOutLine {
  readonly pieces: readonly (TextPiece | TextGap)[];
  /** Total advance width at font size 1. */
  readonly width: number;
  /** Highest ascender and lowest descender of the fonts used, at font size 1 (descent is negative). */
  readonly ascent: number;
  readonly descent: number;
  /** True when the line reads right to left (its first strong character is Arabic or Hebrew). */
  readonly rtl: boolean;
  /** Characters no font can show; left out of `pieces`. */
  readonly unsupported: readonly string[];
}

const GAP_EM = 0.28;
const ZWNJ = 0x200c;
const ZWJ = 0x200d;

const SCRIPT_TESTS: readonly (readonly [ScriptClass, RegExp])[] = [
  ['latin', /\p{Script=Latin}/u],
  ['cyrillic', /\p{Script=Cyrillic}/u],
  ['greek', /\p{Script=Greek}/u],
  ['arabic', /\p{Script=Arabic}/u],
  ['hebrew', /\p{Script=Hebrew}/u],
  ['cjk', /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Bopomofo}]/u],
];
const COMMON = /[\p{Script=Common}\p{Script=Inherited}]/u;
const MARK = /\p{M}/u;
const DIGIT = /\p{Nd}/u;
const FORMAT = /\p{Cf}/u;

type CharClass = ScriptClass | 'common';

const classOf = (ch: string): CharClass => {
  if (COMMON.test(ch)) return 'common';
  for (const [cls, re] of SCRIPT_TESTS) if (re.test(ch)) return cls;
  return 'other';
};

const isRtlClass = (cls: CharClass) => cls === 'arabic' || cls === 'hebrew';

/** Printable ASCII with single spaces between words: what most values are, and already clean. */
const CLEAN_ASCII = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;

/**
 * Clean text for drawing: NFC (so that accented letters match the fonts' precomposed glyphs),
 * control and format characters out (joiners kept: Persian names need ZWNJ), whitespace collapsed.
 */
export const cleanText = (text: string): string =>
  CLEAN_ASCII.test(text)
    ? text
    : text
        .normalize('NFC')
        .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (m) =>
          m === '\u200c' || m === '\u200d' ? m : FORMAT.test(m) ? '' : ' ',
        )
        .replace(/\s+/gu, ' ')
        .trim();

const covers = (face: FontFace, chars: readonly string[]) =>
  chars.every((ch) => {
    const cp = ch.codePointAt(0) ?? 0;
    return cp === ZWNJ || cp === ZWJ || face.font.hasGlyphForCodePoint(cp);
  });

const shape = (face: FontFace, text: string): TextPiece => {
  const { glyphs, positions } = face.font.layout(text);
  let advance = 0;
  for (const position of positions) advance += position.xAdvance;
  return { face, text, glyphs, positions, width: advance / face.font.unitsPerEm };
};

/**
 * Lay out one line: split into script runs, give each run the first font of its chain that has all
 * its glyphs (falling back per character), and order the runs visually with a reduced Unicode
 * bidirectional algorithm (paragraph direction from the first strong letter; Arabic and Hebrew runs
 * at odd levels, Latin-like runs and digits at even levels; neutrals take the direction of their
 * neighbours when both agree). Shaping and the reversal of right-to-left glyphs are fontkit's.
 */
export const layoutLine = (input: string, chains: FontChains): LaidOutLine => {
  const chars = [...cleanText(input)];
  const classes: CharClass[] = chars.map(classOf);

  // Digits, punctuation and marks join the script of their word (the letter before, else after).
  const resolved: ScriptClass[] = new Array<ScriptClass>(chars.length);
  let lastClass: ScriptClass | undefined;
  for (let i = 0; i < chars.length; i++) {
    const cls = classes[i] ?? 'common';
    if (chars[i] === ' ') {
      lastClass = undefined;
      resolved[i] = 'latin';
    } else if (cls !== 'common') {
      lastClass = cls;
      resolved[i] = cls;
    } else if (lastClass) {
      resolved[i] = lastClass;
    } else {
      let next: ScriptClass = 'latin';
      for (let j = i + 1; j < chars.length && chars[j] !== ' '; j++) {
        const c = classes[j];
        if (c && c !== 'common') {
          next = c;
          break;
        }
      }
      resolved[i] = next;
    }
  }

  // One font per script class for the whole line keeps a name in one style.
  const classFace = new Map<ScriptClass, FontFace | undefined>();
  for (const cls of new Set(resolved)) {
    const members = chars.filter((ch, i) => resolved[i] === cls && ch !== ' ');
    classFace.set(
      cls,
      chains[cls].find((face) => covers(face, members)),
    );
  }
  const unsupported: string[] = [];
  const faces: (FontFace | undefined)[] = chars.map((ch, i) => {
    if (ch === ' ') return undefined;
    const cls = resolved[i] ?? 'other';
    const preferred = classFace.get(cls);
    if (preferred && covers(preferred, [ch])) return preferred;
    const fallback = [...chains[cls], ...chains.other].find((face) => covers(face, [ch]));
    if (!fallback) unsupported.push(ch);
    return fallback;
  });

  // Bidi levels.
  const strong = (i: number): 'L' | 'R' | undefined => {
    const cls = classes[i] ?? 'common';
    if (cls !== 'common') return isRtlClass(cls) ? 'R' : 'L';
    return undefined;
  };
  let rtl = false;
  for (let i = 0; i < chars.length; i++) {
    const s = strong(i);
    if (s) {
      rtl = s === 'R';
      break;
    }
  }
  const numberDir: 'L' | 'R' = rtl ? 'R' : 'L';
  const effective = (i: number): 'L' | 'R' | undefined =>
    strong(i) ?? (DIGIT.test(chars[i] ?? '') ? numberDir : undefined);
  // The nearest direction before and after each character, found in one pass each way (searching
  // from every neutral would be quadratic in a long run of punctuation).
  const before: ('L' | 'R' | undefined)[] = new Array<'L' | 'R' | undefined>(chars.length);
  const after: ('L' | 'R' | undefined)[] = new Array<'L' | 'R' | undefined>(chars.length);
  for (let i = 0, last: 'L' | 'R' | undefined; i < chars.length; i++) {
    before[i] = last;
    last = effective(i) ?? last;
  }
  for (let i = chars.length - 1, next: 'L' | 'R' | undefined; i >= 0; i--) {
    after[i] = next;
    next = effective(i) ?? next;
  }
  const levelOf = (dir: 'L' | 'R') => (dir === 'R' ? 1 : rtl ? 2 : 0);
  const levels: number[] = new Array<number>(chars.length).fill(rtl ? 1 : 0);
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] ?? '';
    const s = strong(i);
    if (s) levels[i] = levelOf(s);
    else if (DIGIT.test(ch)) levels[i] = rtl ? 2 : 0;
    else if (MARK.test(ch) && i > 0) levels[i] = levels[i - 1] ?? 0;
    else {
      const b = before[i];
      if (b && b === after[i]) levels[i] = levelOf(b);
    }
  }

  // Runs of one level and one font; spaces become gaps.
  interface Item {
    text: string;
    level: number;
    face: FontFace | undefined;
    hasRtl: boolean;
  }
  const items: Item[] = [];
  for (let i = 0; i < chars.length; i++) {
    const ch = chars[i] ?? '';
    const face = faces[i];
    const level = levels[i] ?? 0;
    if (ch !== ' ' && !face) continue;
    const last = items[items.length - 1];
    if (last && last.level === level && last.face === face && (ch === ' ') === (last.face === undefined)) {
      last.text += ch;
      last.hasRtl ||= strong(i) === 'R';
    } else {
      items.push({ text: ch, level, face, hasRtl: strong(i) === 'R' });
    }
  }
  // Rule L2: from the highest level down to the lowest odd one, reverse every run at that level or above.
  const maxLevel = Math.max(0, ...items.map((it) => it.level));
  const minOdd = Math.min(...items.map((it) => it.level).filter((l) => l % 2 === 1), maxLevel + 1);
  for (let level = maxLevel; level >= minOdd && level >= 1; level--) {
    for (let i = 0; i < items.length;) {
      if ((items[i]?.level ?? 0) < level) {
        i++;
        continue;
      }
      let j = i;
      while (j < items.length && (items[j]?.level ?? 0) >= level) j++;
      const reversed = items.slice(i, j).reverse();
      items.splice(i, j - i, ...reversed);
      i = j;
    }
  }

  const pieces: (TextPiece | TextGap)[] = [];
  let width = 0;
  let ascent = 0;
  let descent = 0;
  for (const item of items) {
    if (!item.face) {
      const gap = GAP_EM * item.text.length;
      pieces.push({ width: gap });
      width += gap;
      continue;
    }
    // fontkit reverses runs in a right-to-left script itself; neutral-only runs at odd levels we reverse.
    const text = item.level % 2 === 1 && !item.hasRtl ? [...item.text].reverse().join('') : item.text;
    let piece: TextPiece;
    try {
      piece = shape(item.face, text);
    } catch {
      // A shaper that fails on this text (fontkit has a few) leaves the characters undrawable.
      unsupported.push(...item.text);
      continue;
    }
    pieces.push(piece);
    width += piece.width;
    ascent = Math.max(ascent, item.face.font.ascent / item.face.font.unitsPerEm);
    descent = Math.min(descent, item.face.font.descent / item.face.font.unitsPerEm);
  }
  return { pieces, width, ascent, descent, rtl, unsupported };
};

/** Advance widths of glyphs at font size 1, per font and code point: measured once per process. */
const advancesByFont = new WeakMap<Font, Map<number, number>>();

const glyphAdvance = (face: FontFace, codePoint: number): number => {
  let advances = advancesByFont.get(face.font);
  if (!advances) {
    advances = new Map();
    advancesByFont.set(face.font, advances);
  }
  let advance = advances.get(codePoint);
  if (advance === undefined) {
    advance = face.font.glyphForCodePoint(codePoint).advanceWidth / face.font.unitsPerEm;
    advances.set(codePoint, advance);
  }
  return advance;
};

/** The font a character would most likely be drawn in, per chain set and code point (null: none has it). */
const facesByChains = new WeakMap<FontChains, Map<number, FontFace | null>>();

const likelyFace = (chains: FontChains, ch: string, codePoint: number): FontFace | undefined => {
  let faces = facesByChains.get(chains);
  if (!faces) {
    faces = new Map();
    facesByChains.set(chains, faces);
  }
  let face = faces.get(codePoint);
  if (face === undefined) {
    const cls = classOf(ch);
    const candidates = [...chains[cls === 'common' ? 'latin' : cls], ...chains.other];
    face = candidates.find((f) => f.font.hasGlyphForCodePoint(codePoint)) ?? null;
    faces.set(codePoint, face);
  }
  return face ?? undefined;
};

/**
 * Estimated advance of one grapheme cluster at font size 1, from its glyphs' advance widths in the
 * font its first character would most likely get (cached per font and code point, so estimating a
 * text is linear in its length). Undefined when no font has that character. Shaping (Arabic joining,
 * ligatures, kerning) can make the real width differ: callers that must fit check lines with
 * `layoutLine`.
 */
export const estimateClusterAdvance = (chains: FontChains, cluster: string): number | undefined => {
  if (cluster === ' ') return GAP_EM;
  const first = cluster.codePointAt(0) ?? 0;
  if (first === ZWNJ || first === ZWJ) return 0;
  const face = likelyFace(chains, String.fromCodePoint(first), first);
  if (!face) return undefined;
  let width = 0;
  for (const ch of cluster) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp === ZWNJ || cp === ZWJ) continue;
    width += face.font.hasGlyphForCodePoint(cp) ? glyphAdvance(face, cp) : glyphAdvance(face, first);
  }
  return width;
};

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Grapheme clusters of a text (a letter with its marks, an emoji sequence): where a line may be cut. */
export const graphemeClusters = (text: string): string[] =>
  Array.from(graphemes.segment(text), (s) => s.segment);
