import { PDFArray, PDFName, PDFNumber } from 'pdf-lib';
import type { PDFPage } from 'pdf-lib';
import type { TPosition } from '@esign/contracts';

/** A rectangle on the page as a person sees it: points from the top-left corner, y growing downwards. */
export interface VisibleBox {
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

/** An affine matrix [a b c d e f] as PDF's `cm` takes it. */
export type Matrix = readonly [number, number, number, number, number, number];

/**
 * The page as a person sees it: the crop box (clipped to the media box), turned by /Rotate.
 */
export interface PageFrame {
  /** Visible width and height in points, after rotation. */
  readonly width: number;
  readonly height: number;
  /** Normalised /Rotate: 0, 90, 180 or 270 (clockwise, as viewers turn the page). */
  readonly rotate: 0 | 90 | 180 | 270;
  /**
   * The matrix that maps a box-local space (origin at the box's visible bottom-left corner, x to the
   * right and y upwards as seen, in points) into the page's default user space.
   */
  boxMatrix(box: VisibleBox): Matrix;
}

const LETTER: readonly [number, number, number, number] = [0, 0, 612, 792];

const readBox = (page: PDFPage, name: string): [number, number, number, number] | undefined => {
  const value = page.node.getInheritableAttribute(PDFName.of(name));
  const array = value ? page.doc.context.lookup(value) : undefined;
  if (!(array instanceof PDFArray) || array.size() !== 4) return undefined;
  const nums = array.asArray().map((item) => page.doc.context.lookup(item));
  if (!nums.every((n): n is PDFNumber => n instanceof PDFNumber)) return undefined;
  const [x1, y1, x2, y2] = nums.map((n) => n.asNumber()) as [number, number, number, number];
  if (![x1, y1, x2, y2].every(Number.isFinite)) return undefined;
  return [Math.min(x1, x2), Math.min(y1, y2), Math.max(x1, x2), Math.max(y1, y2)];
};

const readRotate = (page: PDFPage): 0 | 90 | 180 | 270 => {
  const value = page.node.getInheritableAttribute(PDFName.of('Rotate'));
  const num = value ? page.doc.context.lookup(value) : undefined;
  const degrees = num instanceof PDFNumber ? num.asNumber() : 0;
  // Viewers ignore a /Rotate that is not a multiple of 90.
  const normalised = ((Math.round(degrees) % 360) + 360) % 360;
  return normalised === 90 || normalised === 180 || normalised === 270 ? normalised : 0;
};

/** Read a page's visible area and orientation (inherited attributes included). */
export const pageFrameOf = (page: PDFPage): PageFrame => {
  const media = readBox(page, 'MediaBox') ?? LETTER;
  const crop = readBox(page, 'CropBox');
  let [left, bottom, right, top] = media;
  if (crop) {
    // The visible area is the crop box clipped to the media box; a crop box outside it is ignored.
    const clipped = [
      Math.max(left, crop[0]),
      Math.max(bottom, crop[1]),
      Math.min(right, crop[2]),
      Math.min(top, crop[3]),
    ] as const;
    if (clipped[2] > clipped[0] && clipped[3] > clipped[1]) [left, bottom, right, top] = clipped;
  }
  const cw = right - left;
  const ch = top - bottom;
  const rotate = readRotate(page);
  const turned = rotate === 90 || rotate === 270;
  // (u, v): points from the visible top-left corner, v downwards -> default user space.
  const toUser = (u: number, v: number): [number, number] => {
    switch (rotate) {
      case 90:
        return [left + v, bottom + u];
      case 180:
        return [left + cw - u, bottom + v];
      case 270:
        return [left + cw - v, bottom + ch - u];
      default:
        return [left + u, bottom + ch - v];
    }
  };
  return {
    width: turned ? ch : cw,
    height: turned ? cw : ch,
    rotate,
    boxMatrix(box) {
      const [ox, oy] = toUser(box.x, box.y + box.height);
      const [xx, xy] = toUser(box.x + 1, box.y + box.height);
      const [yx, yy] = toUser(box.x, box.y + box.height - 1);
      return [xx - ox, xy - oy, yx - ox, yy - oy, ox, oy];
    },
  };
};

/**
 * Where a signature goes, in visible points. The box is `width`% of the visible page width and
 * `aspect` (height / width) tall, its top-left corner at (x%, y%). A box that would cross an edge is
 * moved back inside the page (shifted left or up, never clipped); one taller than the page is first
 * scaled down to the page height.
 */
export const placeBox = (frame: PageFrame, position: TPosition, aspect: number): VisibleBox => {
  let width = (frame.width * position.width) / 100;
  let height = width * aspect;
  if (height > frame.height) {
    height = frame.height;
    width = height / aspect;
  }
  const x = Math.min(Math.max((frame.width * position.x) / 100, 0), frame.width - width);
  const y = Math.min(Math.max((frame.height * position.y) / 100, 0), frame.height - height);
  return { x, y, width, height };
};
