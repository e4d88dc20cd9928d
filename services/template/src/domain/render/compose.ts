import type { FontSet } from '../fonts';
import { plain, type Inline } from '../inline';
import type { Block, ComposedDocument } from '../template';
import type { TextLine } from '../wrap-text';
import { createWrap, lineOps, rule, type FlowItem, type Op, type Wrap } from './flow';
import { BODY, CONTENT_WIDTH, HEADING, INDENT, INK, MARGIN, MUTED, TITLE, type TextStyle } from './page';
import { composeSignatureRow } from './signature-row';
import { composeTable } from './table';

/** Lines of a paragraph as separate items, with orphan and widow control (no single line left alone). */
const paragraphItems = (
  lines: TextLine[],
  options: {
    x: number;
    width: number;
    style: TextStyle;
    spaceBefore: number;
    align?: 'left' | 'center' | 'right';
    label?: Op[];
  },
): FlowItem[] =>
  lines.map((line, i) => {
    const offset =
      options.align === 'center'
        ? (options.width - line.width) / 2
        : options.align === 'right'
          ? options.width - line.width
          : 0;
    const ops = lineOps(line, options.x + offset, options.style);
    if (i === 0 && options.label) ops.push(...options.label);
    return {
      height: options.style.leading,
      spaceBefore: i === 0 ? options.spaceBefore : 0,
      keepWithNext: (i === 0 && lines.length > 1) || i === lines.length - 2,
      ops,
    };
  });

const keptWithNext = (items: FlowItem[]): FlowItem[] =>
  items.map((item) => ({ ...item, keepWithNext: true }));

/** A clause or list number in the margin before its text. */
const label = (wrap: Wrap, text: string, x: number, style: TextStyle): Op[] => {
  const [line] = wrap(plain(text), INDENT * 2, style);
  return line ? lineOps(line, x, style) : [];
};

const paragraph = (wrap: Wrap, inline: Inline, spaceBefore = 8): FlowItem[] =>
  paragraphItems(wrap(inline, CONTENT_WIDTH, BODY), {
    x: MARGIN.left,
    width: CONTENT_WIDTH,
    style: BODY,
    spaceBefore,
  });

/** A numbered heading, then its paragraphs (n.1, n.2 when there are several) and lettered lists. */
const clause = (wrap: Wrap, number: number, block: Extract<Block, { kind: 'clause' }>): FlowItem[] => {
  const x = MARGIN.left + INDENT;
  const width = CONTENT_WIDTH - INDENT;
  const headingLines = wrap(plain(block.heading), width, HEADING);
  const items = keptWithNext(
    paragraphItems(headingLines, {
      x,
      width,
      style: HEADING,
      spaceBefore: 14,
      label: label(wrap, `${number}.`, MARGIN.left, HEADING),
    }),
  );
  const numbered = block.body.filter((b) => !('list' in b)).length > 1;
  let paragraphNumber = 0;
  for (const body of block.body) {
    if ('list' in body) {
      body.list.forEach((entry, i) => {
        const letter = `(${String.fromCharCode(97 + (i % 26))})`;
        const lx = x + (numbered ? INDENT : 0);
        items.push(
          ...paragraphItems(wrap(entry, width - (lx - x) - 22, BODY), {
            x: lx + 22,
            width: width - (lx - x) - 22,
            style: BODY,
            spaceBefore: 3,
            label: label(wrap, letter, lx, BODY),
          }),
        );
      });
      continue;
    }
    paragraphNumber += 1;
    const textX = numbered ? x + INDENT : x;
    items.push(
      ...paragraphItems(wrap(body, width - (textX - x), BODY), {
        x: textX,
        width: width - (textX - x),
        style: BODY,
        spaceBefore: paragraphNumber === 1 ? 3 : 6,
        label: numbered ? label(wrap, `${number}.${paragraphNumber}`, x, BODY) : undefined,
      }),
    );
  }
  return items;
};

/** Label/value rows: the label in small bold type on the left, the value beside it. */
const details = (wrap: Wrap, block: Extract<Block, { kind: 'details' }>): FlowItem[] => {
  const labelWidth = 132;
  const style: TextStyle = { ...BODY };
  const labelStyle: TextStyle = { ...BODY, size: 9, bold: true, color: MUTED };
  return block.rows.flatMap((row, i) => {
    const labelLines = wrap(plain(row.label), labelWidth - 8, labelStyle);
    const labelOps = labelLines.flatMap((l, k) =>
      lineOps(l, MARGIN.left, labelStyle, k * labelStyle.leading),
    );
    return paragraphItems(wrap(row.value, CONTENT_WIDTH - labelWidth, style), {
      x: MARGIN.left + labelWidth,
      width: CONTENT_WIDTH - labelWidth,
      style,
      spaceBefore: i === 0 ? 12 : 4,
      label: labelOps,
    });
  });
};

/**
 * Lay out a composed document as flow items, top to bottom: the title (and subtitle) over a rule,
 * the blocks with clauses numbered in order, then the signatures' heading, intro and blocks.
 */
export const composeDocument = (fonts: FontSet, doc: ComposedDocument): FlowItem[] => {
  const wrap = createWrap(fonts);
  const items: FlowItem[] = keptWithNext(
    paragraphItems(wrap(plain(doc.title), CONTENT_WIDTH, TITLE), {
      x: MARGIN.left,
      width: CONTENT_WIDTH,
      style: TITLE,
      spaceBefore: 0,
      align: 'center',
    }),
  );
  if (doc.subtitle) {
    const style: TextStyle = { ...BODY, color: MUTED };
    items.push(
      ...keptWithNext(
        paragraphItems(wrap(doc.subtitle, CONTENT_WIDTH, style), {
          x: MARGIN.left,
          width: CONTENT_WIDTH,
          style,
          spaceBefore: 2,
          align: 'center',
        }),
      ),
    );
  }
  items.push({
    height: 10,
    spaceBefore: 0,
    keepWithNext: true,
    ops: [rule(MARGIN.left, MARGIN.left + CONTENT_WIDTH, 6, 0.8, INK)],
  });
  let clauseNumber = 0;
  for (const block of doc.blocks) {
    if (block.kind === 'paragraph') items.push(...paragraph(wrap, block.text));
    else if (block.kind === 'clause') items.push(...clause(wrap, (clauseNumber += 1), block));
    else if (block.kind === 'details') items.push(...details(wrap, block));
    else items.push(...composeTable(wrap, block));
  }
  const heading = keptWithNext(
    paragraphItems(wrap(plain('Signatures'), CONTENT_WIDTH, HEADING), {
      x: MARGIN.left,
      width: CONTENT_WIDTH,
      style: HEADING,
      spaceBefore: 22,
    }),
  );
  const intro = paragraph(wrap, doc.signatures.intro, 4);
  const last = intro[intro.length - 1];
  if (last) last.keepWithNext = true;
  items.push(...heading, ...intro);
  for (let i = 0; i < doc.signatures.parties.length; i += 2)
    items.push(composeSignatureRow(wrap, doc.signatures.parties.slice(i, i + 2)));
  return items;
};
