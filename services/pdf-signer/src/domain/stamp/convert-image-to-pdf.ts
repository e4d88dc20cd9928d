import { PDFDocument } from 'pdf-lib';
import { ServiceError } from '@esign/contracts';
import { embedImage, orientationMatrix, UnreadableImageError } from './embed-image';
import { matrixOps, num } from '../layout/page-content';

/** Longest page side PDF readers accept (200 inches; Acrobat's limit). */
export const MAX_PAGE_SIDE_PT = 14_400;

/** Largest image (in pixels) converted to a page: 100 megapixels. */
export const MAX_IMAGE_PIXELS = 100_000_000;

/**
 * Turn a PNG or JPEG into a one-page PDF sized to the image: one pixel becomes one point (72 px per
 * inch), so a 1200x800 image makes a 1200x800 pt page; a side longer than 14,400 pt (the PDF
 * readers' limit) scales the page down, keeping the aspect ratio. The page shows the image as a
 * person sees it: a phone photo's EXIF orientation is applied.
 */
export const convertImageToPdf = async (bytes: Buffer): Promise<PDFDocument> => {
  const doc = await PDFDocument.create({ updateMetadata: false });
  let image;
  try {
    image = await embedImage(doc.context, bytes, { maxPixels: MAX_IMAGE_PIXELS });
  } catch (err) {
    if (err instanceof UnreadableImageError) {
      throw new ServiceError('invalid_argument', `file: ${err.message}`, 'file');
    }
    throw err;
  }
  const scale = Math.min(1, MAX_PAGE_SIDE_PT / Math.max(image.displayWidth, image.displayHeight));
  const width = image.displayWidth * scale;
  const height = image.displayHeight * scale;
  const page = doc.addPage([width, height]);
  const name = page.node.newXObject('Im', image.ref).toString();
  const ops = `q ${num(width)} 0 0 ${num(height)} 0 0 cm ${matrixOps(orientationMatrix(image.orientation))} ${name} Do Q`;
  page.node.addContentStream(doc.context.register(doc.context.stream(ops)));
  return doc;
};
