import type { PDFDocument } from 'pdf-lib';
import { createLineMaker } from '../audit/add-audit-page';
import type { FontLibrary } from '../layout/font-library';
import { cleanText } from '../layout/layout-text';
import { createPageContent, matrixOps, num } from '../layout/page-content';
import type { DocumentFonts } from '../layout/page-content';
import { pageFrameOf } from '../layout/page-frame';

const BANNER_TEXT_COLOR = '0.75 0.1 0.1 rg';
const BANNER_FILL = '1 0.93 0.93 rg';

/** The words every page of an incomplete copy carries. */
export const incompleteLabel = (note: string): string => `NOT COMPLETE — ${cleanText(note)}`;

/**
 * Mark every page as not complete, upright as a person sees it: a banner across its top ("NOT
 * COMPLETE — <note>", shrunk to the page's width) and the same words large, light and diagonal
 * across the page. For a copy that is rewritten, not appended: it is a download, not a revision.
 */
export const markPagesIncomplete = (options: {
  doc: PDFDocument;
  note: string;
  library: FontLibrary;
  fonts: DocumentFonts;
}): void => {
  const { doc, library, fonts } = options;
  const make = createLineMaker(library);
  const line = make.value(incompleteLabel(options.note));
  const lineHeight = line.ascent - line.descent;
  for (const page of doc.getPages()) {
    const frame = pageFrameOf(page);
    const content = createPageContent(page, fonts);
    // The banner: a band 4% of the page tall (at least 14 pt), the text as large as fits in it.
    const band = Math.min(Math.max(frame.height * 0.04, 14), frame.height / 4);
    const margin = band * 0.25;
    const bannerSize = Math.min((band - 2 * margin) / lineHeight, (frame.width - 2 * margin) / line.width);
    content.push(
      'q',
      matrixOps(frame.boxMatrix({ x: 0, y: 0, width: frame.width, height: band })),
      BANNER_FILL,
      `0 0 ${num(frame.width)} ${num(band)} re f`,
      BANNER_TEXT_COLOR,
    );
    content.drawLine(line, {
      x: (frame.width - line.width * bannerSize) / 2,
      y: band / 2 - ((line.ascent + line.descent) * bannerSize) / 2,
      size: bannerSize,
    });
    content.push('Q');
    // The diagonal: from the bottom-left towards the top-right corner, 80% of the diagonal long.
    const diagonal = Math.hypot(frame.width, frame.height);
    const angle = Math.atan2(frame.height, frame.width);
    const size = Math.min((diagonal * 0.8) / line.width, frame.height / 8 / lineHeight);
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    content.push(
      'q',
      matrixOps(frame.boxMatrix({ x: 0, y: 0, width: frame.width, height: frame.height })),
      `1 0 0 1 ${num(frame.width / 2)} ${num(frame.height / 2)} cm`,
      `${num(cos)} ${num(sin)} ${num(-sin)} ${num(cos)} 0 0 cm`,
      // Light enough to read the page through it.
      '0.85 0.55 0.55 rg',
    );
    content.drawLine(line, {
      x: -(line.width * size) / 2,
      y: -((line.ascent + line.descent) * size) / 2,
      size,
    });
    content.push('Q');
    content.commit();
  }
};
