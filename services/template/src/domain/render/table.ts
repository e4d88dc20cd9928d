import { plain, type Inline } from '../inline';
import type { Block, TableColumn } from '../template';
import { lineOps, rule, type FlowItem, type Op, type Wrap } from './flow';
import { BODY, CONTENT_WIDTH, INK, MARGIN, MUTED, RULE, type TextStyle } from './page';

/**
 * A table as flow items: a header row, one item per row (the header drawn again above a row that
 * starts a page), then the totals right-aligned under the last two columns, kept together.
 */
export const composeTable = (wrap: Wrap, block: Extract<Block, { kind: 'table' }>): FlowItem[] => {
  const pad = 5;
  const total = block.columns.reduce((s, c) => s + c.width, 0);
  const columns = block.columns.reduce<{ x: number; width: number; column: TableColumn }[]>((acc, column) => {
    const prev = acc[acc.length - 1];
    const x = prev ? prev.x + prev.width : MARGIN.left;
    acc.push({ x, width: (column.width / total) * CONTENT_WIDTH, column });
    return acc;
  }, []);
  const row = (
    cells: readonly Inline[],
    style: TextStyle,
    lineBelow: Op['color'],
    thickness: number,
  ): FlowItem => {
    const laidOut = columns.map((c, i) => ({ c, lines: wrap(cells[i] ?? [], c.width - 2 * pad, style) }));
    const lineCount = Math.max(1, ...laidOut.map((l) => l.lines.length));
    const height = lineCount * style.leading + 2 * pad;
    const ops = laidOut.flatMap(({ c, lines }) =>
      lines.flatMap((line, k) => {
        const x = c.column.align === 'right' ? c.x + c.width - pad - line.width : c.x + pad;
        return lineOps(line, x, style, pad + k * style.leading);
      }),
    );
    ops.push(rule(MARGIN.left, MARGIN.left + CONTENT_WIDTH, height, thickness, lineBelow));
    return { height, spaceBefore: 0, keepWithNext: false, ops };
  };
  const headerStyle: TextStyle = { ...BODY, size: 9, bold: true, color: MUTED };
  const header: FlowItem = {
    ...row(
      block.columns.map((c) => plain(c.header)),
      headerStyle,
      INK,
      0.8,
    ),
    keepWithNext: true,
  };
  const items: FlowItem[] = [{ ...header, spaceBefore: 14 }];
  for (const cells of block.rows) items.push({ ...row(cells, BODY, RULE, 0.5), repeatHeader: header });
  const totalsX = columns[Math.max(0, columns.length - 2)]?.x ?? MARGIN.left;
  const labelWidth = totalsX - MARGIN.left - pad;
  const valueWidth = MARGIN.left + CONTENT_WIDTH - totalsX - pad;
  block.totals.forEach((line, i) => {
    const style: TextStyle = { ...BODY, bold: line.strong ?? false, size: line.strong ? 11 : 10 };
    const labelLines = wrap(plain(line.label), labelWidth, style);
    const valueLines = wrap(line.value, valueWidth, style);
    const ops = [
      ...labelLines.flatMap((l, k) => lineOps(l, totalsX - pad - l.width, style, k * style.leading)),
      ...valueLines.flatMap((l, k) =>
        lineOps(l, MARGIN.left + CONTENT_WIDTH - pad - l.width, style, k * style.leading),
      ),
    ];
    items.push({
      height: Math.max(labelLines.length, valueLines.length, 1) * style.leading,
      spaceBefore: i === 0 ? 8 : 2,
      keepWithNext: i < block.totals.length - 1,
      ops,
    });
  });
  return items;
};
