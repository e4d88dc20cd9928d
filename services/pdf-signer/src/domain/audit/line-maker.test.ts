import { beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument, PDFRawStream, StandardFonts } from 'pdf-lib';
import { createLineMaker } from './add-audit-page';
import { loadFontLibrary } from '../layout/font-library';
import type { FontLibrary } from '../layout/font-library';
import { createDocumentFonts, createPageContent } from '../layout/page-content';

let library: FontLibrary;
beforeAll(async () => {
  library = await loadFontLibrary();
});

describe('a line maker', () => {
  it('is made once per font library', () => {
    expect(createLineMaker(library)).toBe(createLineMaker(library));
  });

  it('keeps fixed text measured and encoded: the same line as `fixed`, with its encoding', async () => {
    const make = createLineMaker(library);
    for (const bold of [false, true]) {
      const text = `SIGNER NAME ${bold ? 'bold' : 'regular'} (AV, To, «é»)`;
      const once = make.fixedOnce(text, bold);
      expect(make.fixedOnce(text, bold)).toBe(once);
      const fresh = make.fixed(text, bold);
      expect(once.width).toBe(fresh.width);
      expect(once.pieces).toHaveLength(1);
      const doc = await PDFDocument.create();
      const font = doc.embedStandardFont(bold ? StandardFonts.HelveticaBold : StandardFonts.Helvetica);
      expect((once.pieces[0] as { hex?: string }).hex).toBe(font.encodeText(text).toString());
    }
    expect(make.fixedOnce('Same text', true)).not.toBe(make.fixedOnce('Same text', false));
  });

  it('draws a kept line exactly as a line measured now', async () => {
    const make = createLineMaker(library);
    const ops = async (line: ReturnType<typeof make.fixed>) => {
      const doc = await PDFDocument.create();
      const page = doc.addPage();
      const content = createPageContent(page, createDocumentFonts(doc));
      content.drawLine(line, { x: 56, y: 700, size: 9 });
      content.commit();
      await doc.flush();
      // The page's only content stream: the one the line was drawn into.
      const [, stream] = doc.context
        .enumerateIndirectObjects()
        .find(([, object]) => object instanceof PDFRawStream) ?? [undefined, undefined];
      if (!(stream instanceof PDFRawStream)) throw new Error('no content stream');
      return Buffer.from(stream.contents).toString('latin1');
    };
    const text = 'Any change after signing makes that signature invalid';
    const kept = await ops(make.fixedOnce(text));
    expect(kept).toMatch(/^BT \/\S+ 9 Tf 1 0 0 1 56 700 Tm <[0-9A-F]+> Tj ET$/);
    expect(kept).toBe(await ops(make.fixed(text)));
  });
});
