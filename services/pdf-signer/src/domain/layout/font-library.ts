import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { openFont, type Font } from '@esign/fontkit';
import { StandardFonts, PDFDocument } from 'pdf-lib';
import type { PDFFont } from 'pdf-lib';

/** A font file read and parsed once. */
export interface FontFace {
  readonly name: string;
  readonly font: Font;
}

/** Families of scripts that share a font choice within one name. */
export type ScriptClass = 'latin' | 'cyrillic' | 'greek' | 'arabic' | 'hebrew' | 'cjk' | 'other';

/** Fonts to try per script class, best first; `other` is the last resort for any character. */
export type FontChains = Readonly<Record<ScriptClass, readonly FontFace[]>>;

/** Every font the signer uses, parsed once, and the fallback chains built from them. */
export interface FontLibrary {
  /** Handwriting-style fonts first: for typed signatures. */
  readonly handwriting: FontChains;
  /** Plain sans-serif fonts: for the audit page when Helvetica cannot encode the text. */
  readonly sans: FontChains;
  /** Bold sans-serif for audit page labels and headings (Latin, Greek, Cyrillic). */
  readonly sansBold: FontFace;
  /** Code points Helvetica (WinAnsiEncoding) can show. */
  readonly winAnsi: ReadonlySet<number>;
  /** Helvetica and Helvetica-Bold metrics, for measuring text before a document exists. */
  readonly helvetica: PDFFont;
  readonly helveticaBold: PDFFont;
}

const require = createRequire(import.meta.url);

const FONT_FILES = {
  caveat: '@expo-google-fonts/caveat/600SemiBold/Caveat_600SemiBold.ttf',
  arefRuqaa: '@expo-google-fonts/aref-ruqaa/400Regular/ArefRuqaa_400Regular.ttf',
  maShanZheng: '@expo-google-fonts/ma-shan-zheng/400Regular/MaShanZheng_400Regular.ttf',
  nanumPen: '@expo-google-fonts/nanum-pen-script/400Regular/NanumPenScript_400Regular.ttf',
  notoSans: '@expo-google-fonts/noto-sans/400Regular/NotoSans_400Regular.ttf',
  notoSansBold: '@expo-google-fonts/noto-sans/700Bold/NotoSans_700Bold.ttf',
  notoSansArabic: '@expo-google-fonts/noto-sans-arabic/400Regular/NotoSansArabic_400Regular.ttf',
  notoSansHebrew: '@expo-google-fonts/noto-sans-hebrew/400Regular/NotoSansHebrew_400Regular.ttf',
  notoSansJp: '@expo-google-fonts/noto-sans-jp/400Regular/NotoSansJP_400Regular.ttf',
} as const;

// Text that makes fontkit parse each font's cmap and layout tables now rather than on a request.
const WARM_UP_TEXT = 'Aa Яя Ωω محمد דוד 王小明 김 やまだ 1.';

const loadFace = (name: string, specifier: string): FontFace => {
  const bytes = new Uint8Array(readFileSync(require.resolve(specifier)));
  const font = openFont(bytes);
  for (const word of WARM_UP_TEXT.split(' ')) {
    if ([...word].every((ch) => font.hasGlyphForCodePoint(ch.codePointAt(0) ?? 0))) font.layout(word);
  }
  return { name, font };
};

/** Read and parse every font once (about 15 MB of font files, ~100 ms). */
export const loadFontLibrary = async (): Promise<FontLibrary> => {
  const f = Object.fromEntries(
    Object.entries(FONT_FILES).map(([name, specifier]) => [name, loadFace(name, specifier)]),
  ) as Record<keyof typeof FONT_FILES, FontFace>;
  const lastResort = [
    f.notoSans,
    f.notoSansArabic,
    f.notoSansHebrew,
    f.notoSansJp,
    f.nanumPen,
    f.maShanZheng,
  ];
  const handwriting: FontChains = {
    latin: [f.caveat, f.notoSans],
    cyrillic: [f.caveat, f.notoSans],
    greek: [f.notoSans],
    arabic: [f.arefRuqaa, f.notoSansArabic],
    hebrew: [f.notoSansHebrew],
    // Ma Shan Zheng has simplified Chinese only: kana go to Noto Sans JP, hangul to Nanum Pen Script.
    cjk: [f.maShanZheng, f.nanumPen, f.notoSansJp],
    other: lastResort,
  };
  const sans: FontChains = {
    latin: [f.notoSans],
    cyrillic: [f.notoSans],
    greek: [f.notoSans],
    arabic: [f.notoSansArabic],
    hebrew: [f.notoSansHebrew],
    cjk: [f.notoSansJp, f.nanumPen, f.maShanZheng],
    other: lastResort,
  };
  const scratch = await PDFDocument.create({ updateMetadata: false });
  const helvetica = scratch.embedStandardFont(StandardFonts.Helvetica);
  const helveticaBold = scratch.embedStandardFont(StandardFonts.HelveticaBold);
  return {
    handwriting,
    sans,
    sansBold: f.notoSansBold,
    winAnsi: new Set(helvetica.getCharacterSet()),
    helvetica,
    helveticaBold,
  };
};
