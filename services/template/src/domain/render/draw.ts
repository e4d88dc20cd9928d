import { PDFDocument, PDFHexString, PDFName, PDFOperator, PDFOperatorNames, type PDFFont } from 'pdf-lib';
import type { FontKey, FontSet } from '../fonts';
import type { Op } from './flow';
import { PAGE_HEIGHT, PAGE_WIDTH } from './page';

/**
 * Scripts whose shaped glyphs are not in reading order (Indic vowel signs drawn before their
 * consonant, reph drawn after it): their runs carry /ActualText so that copying and text extraction
 * give the characters as typed.
 */
const REORDERED_SCRIPTS =
  /[\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}]/u;

/**
 * An inline marked-content property list `<< /ActualText <hex> >>`. The text is written as UTF-16
 * hex digits, like every other string here, so it cannot break out as syntax.
 */
const actualTextProperties = (text: string): string =>
  `<< /ActualText ${PDFHexString.fromText(text).toString()} >>`;

const subsetTag = (): string =>
  Array.from({ length: 6 }, () => String.fromCharCode(65 + Math.floor(Math.random() * 26))).join('');

const FONT_KEYS: readonly FontKey[] = [
  'sans',
  'sansBold',
  'arabic',
  'hebrew',
  'thai',
  'japanese',
  'hanzi',
  'hangul',
];

/** The document's info dictionary. */
export interface PdfMetadata {
  readonly title: string;
  readonly subject?: string;
  /** Creation and modification date. */
  readonly now: Date;
}

/**
 * Draw laid-out pages (A4, one list of ops each) into a new PDF. Text is drawn as glyphs of
 * embedded subset fonts, each font embedded on its first use.
 */
export const drawPdf = async (options: {
  fonts: FontSet;
  pages: readonly (readonly Op[])[];
  metadata: PdfMetadata;
}): Promise<Uint8Array> => {
  const { fonts, metadata } = options;
  const pdf = await PDFDocument.create({ updateMetadata: false });
  // Fonts were parsed at start-up: hand pdf-lib the parsed font instead of parsing the bytes again.
  const byBytes = new Map<Uint8Array, ReturnType<FontSet['get']>>();
  for (const key of FONT_KEYS) {
    const loaded = fonts.get(key);
    byBytes.set(loaded.bytes, loaded);
  }
  pdf.registerFontkit({
    create: (bytes: Uint8Array) => {
      const loaded = byBytes.get(bytes);
      if (!loaded) throw new Error('unknown font bytes');
      return loaded.font;
    },
  });
  const embedded = new Map<FontKey, PDFFont>();
  const fontOf = async (key: FontKey): Promise<PDFFont> => {
    const existing = embedded.get(key);
    if (existing) return existing;
    const loaded = fonts.get(key);
    const font = await pdf.embedFont(loaded.bytes, {
      subset: true,
      features: loaded.features,
      customName: `${subsetTag()}+${loaded.font.postscriptName ?? key}`,
    });
    embedded.set(key, font);
    return font;
  };

  for (const ops of options.pages) {
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    for (const op of ops) {
      if (op.kind === 'line') {
        page.drawLine({
          start: { x: op.x1, y: PAGE_HEIGHT - op.y1 },
          end: { x: op.x2, y: PAGE_HEIGHT - op.y2 },
          thickness: op.thickness,
          color: op.color,
        });
      } else {
        const font = await fontOf(op.run.font);
        const actualText = REORDERED_SCRIPTS.test(op.run.text);
        if (actualText) {
          page.pushOperators(
            PDFOperator.of(PDFOperatorNames.BeginMarkedContentSequence, [
              PDFName.of('Span'),
              actualTextProperties(op.run.text),
            ]),
          );
        }
        page.drawText(op.run.text, {
          x: op.x,
          y: PAGE_HEIGHT - op.baseline,
          size: op.run.size * fonts.get(op.run.font).scale,
          font,
          color: op.color,
        });
        if (actualText) page.pushOperators(PDFOperator.of(PDFOperatorNames.EndMarkedContent));
      }
    }
  }
  pdf.setTitle(metadata.title);
  if (metadata.subject) pdf.setSubject(metadata.subject);
  pdf.setCreator('esign template service');
  pdf.setProducer('esign (pdf-lib)');
  pdf.setCreationDate(metadata.now);
  pdf.setModificationDate(metadata.now);
  return pdf.save();
};
