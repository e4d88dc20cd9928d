import type { PDFDocument, PDFPage } from 'pdf-lib';
import { ServiceError } from '@esign/contracts';
import type { TPosition, TSignature } from '@esign/contracts';
import { embedImage, orientationMatrix, UnreadableImageError } from './embed-image';
import type { EmbeddedImage } from './embed-image';
import type { FontLibrary } from '../layout/font-library';
import { layoutLine } from '../layout/layout-text';
import type { LaidOutLine } from '../layout/layout-text';
import { createPageContent, fillColorOps, matrixOps, num } from '../layout/page-content';
import type { DocumentFonts, PageContent } from '../layout/page-content';
import { pageFrameOf, placeBox } from '../layout/page-frame';
import type { PageFrame, VisibleBox } from '../layout/page-frame';

/** Largest signature image, in pixels (a drawn signature is a few hundred thousand). */
const MAX_SIGNATURE_PIXELS = 25_000_000;

/** A typed name's box is at most this tall relative to its width (short names would be huge otherwise). */
const MAX_TEXT_ASPECT = 0.4;

/** The signature to stamp, prepared once per document and drawn at every position. */
export type PreparedSignature =
  | { readonly kind: 'image'; readonly image: EmbeddedImage; readonly aspect: number }
  | { readonly kind: 'text'; readonly line: LaidOutLine; readonly color: string; readonly aspect: number };

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/**
 * Embed the signature image, or lay out the typed name in handwriting fonts. A typed name whose
 * letters no font can draw is refused rather than drawn with gaps; symbols such as emoji are left out.
 */
export const prepareSignature = async (
  doc: PDFDocument,
  signature: TSignature,
  library: FontLibrary,
): Promise<PreparedSignature> => {
  if (signature.mode === 'type') {
    const line = layoutLine(signature.typedName, library.handwriting);
    const missing = line.unsupported.filter((ch) => LETTER_OR_DIGIT.test(ch));
    if (missing.length > 0 || line.width <= 0) {
      const shown = [...new Set(missing)]
        .slice(0, 5)
        .map((ch) => `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`)
        .join(', ');
      throw new ServiceError(
        'invalid_argument',
        missing.length > 0
          ? `typedName: no signature font can draw these characters: ${shown}`
          : 'typedName: nothing to draw',
        'typedName',
      );
    }
    const aspect = Math.min((line.ascent - line.descent) / line.width, MAX_TEXT_ASPECT);
    return { kind: 'text', line, color: signature.color, aspect };
  }
  const bytes = Buffer.from(signature.imageBase64, 'base64');
  try {
    const image = await embedImage(doc.context, bytes, { maxPixels: MAX_SIGNATURE_PIXELS });
    return { kind: 'image', image, aspect: image.displayHeight / image.displayWidth };
  } catch (err) {
    if (err instanceof UnreadableImageError) {
      throw new ServiceError('invalid_argument', `signatureData: ${err.message}`, 'signatureData');
    }
    throw err;
  }
};

/** Refuse positions on pages the document does not have, naming the position at fault. */
export const checkPositions = (positions: readonly TPosition[], pageCount: number): void => {
  positions.forEach((position, i) => {
    if (position.page >= pageCount) {
      const field = `positions.${i}.page`;
      const pages = `${pageCount} page${pageCount === 1 ? '' : 's'}`;
      throw new ServiceError(
        'invalid_argument',
        `${field}: page ${position.page} does not exist (the document has ${pages})`,
        field,
      );
    }
  });
};

/**
 * Draw the signature at every position, upright at the place a person sees on the page whatever the
 * page's /Rotate and crop box. Each page gets one new content stream; the old ones are wrapped in
 * q/Q so that a graphics state they leave behind cannot move the stamps.
 */
export const stampSignatures = (options: {
  pages: readonly PDFPage[];
  positions: readonly TPosition[];
  signature: PreparedSignature;
  fonts: DocumentFonts;
}): void => {
  const { pages, positions, signature, fonts } = options;
  const byPage = new Map<number, TPosition[]>();
  for (const position of positions)
    byPage.set(position.page, [...(byPage.get(position.page) ?? []), position]);
  for (const [index, onPage] of byPage) {
    const page = pages[index];
    if (!page) continue;
    const frame = pageFrameOf(page);
    const content = createPageContent(page, fonts);
    for (const position of onPage) {
      drawSignature(content, frame, placeBox(frame, position, signature.aspect), signature);
    }
    content.commit();
  }
};

/**
 * Draw a prepared signature filling `box` (visible points), upright as a person sees the page: an
 * image stretched to the box (give it a box of the image's aspect), a typed name as large as fits,
 * centred.
 */
export const drawSignature = (
  content: PageContent,
  frame: PageFrame,
  box: VisibleBox,
  signature: PreparedSignature,
): void => {
  content.push('q', matrixOps(frame.boxMatrix(box)));
  if (signature.kind === 'image') {
    const name = content.xObject(signature.image.ref);
    content.push(
      `${num(box.width)} 0 0 ${num(box.height)} 0 0 cm`,
      matrixOps(orientationMatrix(signature.image.orientation)),
      `${name} Do`,
    );
  } else {
    const { line } = signature;
    const size = Math.min(box.width / line.width, box.height / (line.ascent - line.descent));
    const x = (box.width - line.width * size) / 2;
    const y = box.height / 2 - ((line.ascent + line.descent) * size) / 2;
    content.push(fillColorOps(signature.color));
    content.drawLine(line, { x, y, size });
  }
  content.push('Q');
};
