import type { FontSet } from '../fonts';
import { plain } from '../inline';
import { wrapText } from '../wrap-text';
import { lineOps, rule, type Op } from './flow';
import { baselineOf, CONTENT_WIDTH, MARGIN, PAGE_HEIGHT, SMALL, type TextStyle } from './page';

/**
 * The footer of a page, known once the pages are counted: a rule, the title on the left (left out
 * when it would not fit in 60% of the width) and "Page n of m" on the right.
 */
export const footerOps = (fonts: FontSet, title: string, pageNumber: number, pageCount: number): Op[] => {
  const y = PAGE_HEIGHT - 40;
  const style: TextStyle = { ...SMALL };
  const [numberLine] = wrapText(plain(`Page ${pageNumber} of ${pageCount}`), {
    fonts,
    size: style.size,
    width: CONTENT_WIDTH,
  });
  const [titleLine] = wrapText(plain(title), { fonts, size: style.size, width: CONTENT_WIDTH * 0.6 });
  const ops: Op[] = [rule(MARGIN.left, MARGIN.left + CONTENT_WIDTH, y - 14, 0.5)];
  if (numberLine)
    ops.push(
      ...lineOps(numberLine, MARGIN.left + CONTENT_WIDTH - numberLine.width, style, y - baselineOf(style)),
    );
  if (titleLine && titleLine.width <= CONTENT_WIDTH * 0.6)
    ops.push(...lineOps(titleLine, MARGIN.left, style, y - baselineOf(style)));
  return ops;
};
