import type { TPosition } from '@esign/contracts';
import type { FlowItem, Op } from './flow';
import { MARGIN, PAGE_HEIGHT, PAGE_WIDTH } from './page';

/** What one page draws, in page coordinates (points from the top-left, y down). */
export interface LaidOutPage {
  ops: Op[];
}

/** The pages, and each signature box as a position on them (percent of the page, rounded inwards). */
export interface Pagination {
  pages: LaidOutPage[];
  signatures: TPosition[];
}

/** Place items on pages: break before an item (or a chain of items kept together) that does not fit. */
export const paginate = (items: FlowItem[]): Pagination => {
  const pages: LaidOutPage[] = [];
  const signatures: TPosition[] = [];
  const bottom = PAGE_HEIGHT - MARGIN.bottom;
  const pageRoom = bottom - MARGIN.top;
  let page: LaidOutPage = { ops: [] };
  pages.push(page);
  let y = MARGIN.top;
  const place = (item: FlowItem, top: number) => {
    for (const op of item.ops) {
      page.ops.push(
        op.kind === 'text'
          ? { ...op, baseline: op.baseline + top }
          : { ...op, y1: op.y1 + top, y2: op.y2 + top },
      );
    }
    for (const s of item.signatures ?? []) {
      signatures.push({
        // Rounded inwards so the box stays inside the area.
        x: Math.ceil((s.x / PAGE_WIDTH) * 10000) / 100,
        y: Math.ceil(((s.y + top) / PAGE_HEIGHT) * 10000) / 100,
        width: Math.floor((s.width / PAGE_WIDTH) * 10000) / 100,
        page: pages.length - 1,
      });
    }
  };
  const chainHeight = (from: number): number => {
    let height = items[from]?.height ?? 0;
    for (let k = from; items[k]?.keepWithNext && k + 1 < items.length; k++) {
      const next = items[k + 1];
      if (next) height += next.spaceBefore + next.height;
    }
    return height;
  };
  items.forEach((item, i) => {
    const atTop = y === MARGIN.top;
    const space = atTop ? 0 : item.spaceBefore;
    const chain = chainHeight(i);
    const chainBreaks = y + space + chain > bottom && chain <= pageRoom;
    if (!atTop && (chainBreaks || y + space + item.height > bottom)) {
      page = { ops: [] };
      pages.push(page);
      y = MARGIN.top;
      if (item.repeatHeader) {
        place(item.repeatHeader, y);
        y += item.repeatHeader.height;
      }
      place(item, y);
      y += item.height;
      return;
    }
    place(item, y + space);
    y += space + item.height;
  });
  return { pages, signatures };
};
