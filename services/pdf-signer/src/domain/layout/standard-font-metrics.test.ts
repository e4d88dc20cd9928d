import { PDFDocument, StandardFonts } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { standardFontMetrics } from './standard-font-metrics';

const TEXTS = [
  '',
  'A',
  'AV To Wa yo LT',
  'Signature audit trail',
  'SHA-256 OF THE ORIGINAL DOCUMENT',
  'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
  'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
  'Crème brûlée – “quoted” € ß Æ ÿ … ‰ ™',
  "O'Brien, Zoë; Łódź? no: Zoe",
];

describe('standardFontMetrics', () => {
  it.each([StandardFonts.Helvetica, StandardFonts.HelveticaBold, StandardFonts.TimesRoman])(
    'measures and encodes %s text exactly as pdf-lib does',
    async (name) => {
      const doc = await PDFDocument.create();
      const font = doc.embedStandardFont(name);
      const metrics = standardFontMetrics(font);
      for (const text of TEXTS.filter((t) => !t.includes('Ł'))) {
        for (const size of [1, 7.5, 9, 10.5, 20]) {
          expect(metrics.widthOfTextAtSize(text, size)).toBe(font.widthOfTextAtSize(text, size));
        }
        expect(metrics.encodeText(text)).toBe(font.encodeText(text).toString());
      }
      // Twice: the second answer comes from the filled tables.
      expect(metrics.widthOfTextAtSize('AV To', 12)).toBe(font.widthOfTextAtSize('AV To', 12));
      expect(metrics.widthOfTextAtSize('AV', 1000)).toBeLessThan(
        metrics.widthOfTextAtSize('A', 1000) + metrics.widthOfTextAtSize('V', 1000),
      );
    },
  );

  it('refuses characters the encoding lacks, as pdf-lib does', async () => {
    const doc = await PDFDocument.create();
    const font = doc.embedStandardFont(StandardFonts.Helvetica);
    const metrics = standardFontMetrics(font);
    expect(() => font.encodeText('Łódź')).toThrow();
    expect(() => metrics.encodeText('Łódź')).toThrow();
    expect(() => metrics.widthOfTextAtSize('Łódź', 10)).toThrow();
  });
});
