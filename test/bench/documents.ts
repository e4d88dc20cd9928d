import { PDFDocument, StandardFonts, rgb } from 'pdf-lib';

/** Documents the benchmarks sign. */

/** A text PDF of `pages` A4 pages, 60 lines of Helvetica each (a contract's body text): `bench:peers`' and `bench:envelope`'s. */
export const makeTextPdf = async (pages: number): Promise<Buffer> => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const words =
    'the parties agree that this contract is governed by the law of the place where it was signed and that any dispute shall be settled there'.split(
      ' ',
    );
  for (let p = 0; p < pages; p++) {
    const page = doc.addPage([595.28, 841.89]);
    for (let line = 0; line < 60; line++) {
      const text = Array.from({ length: 14 }, (_, i) => words[(p * 60 + line * 14 + i) % words.length]).join(
        ' ',
      );
      page.drawText(`${p + 1}.${line + 1} ${text}`, {
        x: 50,
        y: 800 - line * 12.5,
        size: 9,
        font,
        color: rgb(0, 0, 0),
      });
    }
  }
  return Buffer.from(await doc.save());
};
