import type { TPosition } from '@esign/contracts';
import type { FontSet } from '../fonts';
import { inlineText } from '../inline';
import type { ComposedDocument } from '../template';
import { composeDocument } from './compose';
import { drawPdf } from './draw';
import { footerOps } from './footer';
import { paginate } from './paginate';

export { MARGIN, PAGE_HEIGHT, PAGE_WIDTH } from './page';
export { SIGNATURE_AREA_HEIGHT } from './signature-row';

export interface RenderedDocument {
  readonly bytes: Uint8Array;
  readonly pageCount: number;
  /** One per signature block, in the order of the parties. */
  readonly positions: TPosition[];
}

/**
 * Render a composed document to PDF: title, numbered clauses, wrapped paragraphs, page breaks that
 * never leave a heading or a single line alone, "Page n of m" on every page and a signature block per
 * party. Every value is drawn as glyphs of an embedded subset font, never as PDF syntax.
 *
 * Three steps, one file each: composing lays the document out as flow items (`compose.ts`, with
 * `table.ts` and `signature-row.ts`), paginating places them on pages (`paginate.ts`), drawing
 * writes the pages, with their footers, into a PDF (`draw.ts`).
 */
export const renderDocument = async (
  doc: ComposedDocument,
  options: { fonts: FontSet; subject?: string; now?: Date },
): Promise<RenderedDocument> => {
  const { fonts } = options;
  const { pages, signatures } = paginate(composeDocument(fonts, doc));
  const bytes = await drawPdf({
    fonts,
    pages: pages.map((page, index) => [...page.ops, ...footerOps(fonts, doc.title, index + 1, pages.length)]),
    metadata: {
      title: `${doc.title}${doc.subtitle ? ` — ${inlineText(doc.subtitle)}` : ''}`.slice(0, 500),
      subject: options.subject,
      now: options.now ?? new Date(),
    },
  });
  return { bytes, pageCount: pages.length, positions: signatures };
};
