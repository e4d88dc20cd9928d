import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { openFont, type Font } from '@esign/fontkit';
import type { TypeFeatures } from '@pdf-lib/fontkit';

/** The fonts a document may use. Every font is embedded (as a subset) only when text needs it. */
export type FontKey = 'sans' | 'sansBold' | 'arabic' | 'hebrew' | 'thai' | 'japanese' | 'hanzi' | 'hangul';

/** A font parsed once at start-up; its bytes are embedded into each document that uses it. */
export interface LoadedFont {
  readonly key: FontKey;
  readonly bytes: Uint8Array;
  readonly font: Font;
  /** Code points the font has a glyph for. */
  readonly coverage: ReadonlySet<number>;
  /** Size factor that matches the font's apparent size to Noto Sans. */
  readonly scale: number;
  /** Layout features, used both to measure and (through pdf-lib) to draw. */
  readonly features: TypeFeatures;
}

/** The font files the service ships, resolved from their npm packages. */
const FONT_FILES: Record<FontKey, string> = {
  sans: '@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf',
  sansBold: '@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf',
  arabic: '@expo-google-fonts/noto-sans-arabic/400Regular/NotoSansArabic_400Regular.ttf',
  hebrew: '@expo-google-fonts/noto-sans-hebrew/400Regular/NotoSansHebrew_400Regular.ttf',
  thai: '@expo-google-fonts/noto-sans-thai/400Regular/NotoSansThai_400Regular.ttf',
  japanese: '@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf',
  // Simplified Chinese characters that Noto Sans JP lacks (GB 2312 coverage).
  hanzi: '@expo-google-fonts/ma-shan-zheng/400Regular/MaShanZheng_400Regular.ttf',
  hangul: '@expo-google-fonts/nanum-pen-script/400Regular/NanumPenScript_400Regular.ttf',
};

/** Nanum Pen Script draws small letters for its em size: scaled up to sit evenly with Noto Sans. */
const FONT_SCALE: Partial<Record<FontKey, number>> = { hangul: 1.3 };

/**
 * Noto Sans Thai's `ccmp` splits SARA AM into two glyphs, the second without a character of its own,
 * which text extraction reads as a space ("จำ กัด"); the precomposed glyph draws the same vowel.
 */
const FONT_FEATURE_OVERRIDES: Partial<Record<FontKey, TypeFeatures>> = { thai: { ccmp: false } };

/** Fallback order after the primary face: scripts the Noto Sans faces do not cover. */
const FALLBACKS: readonly FontKey[] = ['arabic', 'hebrew', 'thai', 'japanese', 'hanzi', 'hangul'];

/**
 * Layout features used both to measure and (through pdf-lib) to draw, so that widths always match
 * what is drawn. Discretionary ligatures are off so that text extracted from the PDF reads back as
 * typed; required ligatures (Arabic lam-alef) stay on. Positioning features are off: pdf-lib places
 * glyphs by their advance widths only, so computing positions would only cost time.
 */
const FONT_FEATURES: TypeFeatures = {
  liga: false,
  dlig: false,
  kern: false,
  mark: false,
  mkmk: false,
};

const MAX_CACHED_WIDTHS = 50_000;

/** Parsed fonts with the order in which to try them for a character. */
export interface FontSet {
  get(key: FontKey): LoadedFont;
  /** Fonts to try, in order, for regular or bold text. */
  chain(bold: boolean): readonly FontKey[];
  /** Width of `text` in points, drawn in one font at `size` (times the font's scale). */
  measure(text: string, key: FontKey, size: number): number;
}

/** Read and parse every font once (at start-up), so that requests only lay out and subset. */
export const loadFontSet = (): FontSet => {
  const require = createRequire(import.meta.url);
  const fonts = new Map<FontKey, LoadedFont>();
  for (const [key, file] of Object.entries(FONT_FILES) as [FontKey, string][]) {
    const bytes = new Uint8Array(readFileSync(require.resolve(file)));
    const font = openFont(bytes);
    fonts.set(key, {
      key,
      bytes,
      font,
      coverage: new Set(font.characterSet),
      scale: FONT_SCALE[key] ?? 1,
      features: { ...FONT_FEATURES, ...FONT_FEATURE_OVERRIDES[key] },
    });
  }
  const get = (key: FontKey): LoadedFont => {
    const loaded = fonts.get(key);
    if (!loaded) throw new Error(`font ${key} is not loaded`);
    return loaded;
  };
  // Contract text repeats the same words in every document: widths (in font units) are cached.
  const widths = new Map<string, number>();
  const regular: readonly FontKey[] = ['sans', ...FALLBACKS];
  const bold: readonly FontKey[] = ['sansBold', ...FALLBACKS];
  return {
    get,
    chain: (isBold) => (isBold ? bold : regular),
    measure(text, key, size) {
      const { font, scale, features } = get(key);
      const cacheKey = `${key}\u0000${text}`;
      let units = widths.get(cacheKey);
      if (units === undefined) {
        units = 0;
        for (const glyph of font.layout(text, features).glyphs) units += glyph.advanceWidth;
        if (widths.size >= MAX_CACHED_WIDTHS) widths.clear();
        widths.set(cacheKey, units);
      }
      return (units * size * scale) / font.unitsPerEm;
    },
  };
};
