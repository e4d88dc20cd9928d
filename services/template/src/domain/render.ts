import {
  PDFDocument,
  PDFHexString,
  PDFName,
  PDFOperator,
  PDFOperatorNames,
  rgb,
  type PDFFont,
  type RGB,
} from 'pdf-lib';
import type { TPosition } from '@esign/contracts';
import type { FontKey, FontSet } from './fonts';
import { inlineText, plain, type Inline } from './inline';
import type { Block, ComposedDocument, SignatureParty, TableColumn } from './template';
import { wrapText, type PlacedRun, type TextLine } from './wrap-text';

/** A4 in points. */
export const PAGE_WIDTH = 595.28;
export const PAGE_HEIGHT = 841.89;
export const MARGIN = { left: 64, right: 64, top: 64, bottom: 72 } as const;
const CONTENT_WIDTH = PAGE_WIDTH - MARGIN.left - MARGIN.right;
const INDENT = 28;

/** Height of the empty area above each signature line. */
export const SIGNATURE_AREA_HEIGHT = 66;
/** Room left between the signature box and the edges of its area. */
const SIGNATURE_INSET = 3;
/**
 * A signature is stamped `width` wide with its own aspect ratio; drawn signatures are about 3:1 and
 * rarely taller than 2.5:1, so a box of (area height - insets) x 2.5 fits the area.
 */
const SIGNATURE_WIDTH = Math.min((SIGNATURE_AREA_HEIGHT - 2 * SIGNATURE_INSET) * 2.5, 200);
/** Lines of a party's name shown in its signature block (the full name is in the text). */
const MAX_NAME_LINES = 4;

const INK = rgb(0.11, 0.11, 0.13);
const MUTED = rgb(0.38, 0.38, 0.42);
const RULE = rgb(0.78, 0.78, 0.8);

interface TextStyle {
  readonly size: number;
  readonly leading: number;
  readonly bold?: boolean;
  readonly color?: RGB;
}
const BODY: TextStyle = { size: 10, leading: 14.5 };
const HEADING: TextStyle = { size: 11, leading: 16, bold: true };
const TITLE: TextStyle = { size: 18, leading: 24, bold: true };
const SMALL: TextStyle = { size: 8.5, leading: 12, color: MUTED };

/** Something to draw; coordinates are points from the top-left of the page (y down). */
type Op =
  | { kind: 'text'; x: number; baseline: number; run: PlacedRun; color: RGB }
  | { kind: 'line'; x1: number; y1: number; x2: number; y2: number; thickness: number; color: RGB };

/** A unit of the flow that is never split across pages. Op coordinates are relative to its top. */
interface FlowItem {
  height: number;
  /** Gap above, dropped at the top of a page. */
  spaceBefore: number;
  /** Keep on the same page as the next item (headings, orphan and widow lines). */
  keepWithNext: boolean;
  ops: Op[];
  /** Drawn first when this item starts a new page (a table's header row). */
  repeatHeader?: FlowItem;
  /** Signature boxes inside this item, relative to its top. */
  signatures?: { x: number; y: number; width: number }[];
}

export interface RenderedDocument {
  readonly bytes: Uint8Array;
  readonly pageCount: number;
  /** One per signature block, in the order of the parties. */
  readonly positions: TPosition[];
}

const baselineOf = (style: TextStyle) => style.leading / 2 + style.size * 0.35;

const lineOps = (line: TextLine, x: number, style: TextStyle, top = 0): Op[] =>
  line.runs.map((run) => ({
    kind: 'text',
    x: x + run.x,
    baseline: top + baselineOf(style),
    run,
    color: style.color ?? INK,
  }));

const rule = (x1: number, x2: number, y: number, thickness = 0.6, color = RULE): Op => ({
  kind: 'line',
  x1,
  y1: y,
  x2,
  y2: y,
  thickness,
  color,
});

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

/** Lays out blocks into flow items; keeps the fonts and the state of clause numbering. */
const createComposer = (fonts: FontSet) => {
  const wrap = (inline: Inline, width: number, style: TextStyle) =>
    wrapText(inline, { fonts, size: style.size, width, bold: style.bold ?? false });
  const label = (text: string, x: number, style: TextStyle): Op[] => {
    const [line] = wrap(plain(text), INDENT * 2, style);
    return line ? lineOps(line, x, style) : [];
  };

  const paragraph = (inline: Inline, spaceBefore = 8): FlowItem[] =>
    paragraphItems(wrap(inline, CONTENT_WIDTH, BODY), {
      x: MARGIN.left,
      width: CONTENT_WIDTH,
      style: BODY,
      spaceBefore,
    });

  const clause = (number: number, block: Extract<Block, { kind: 'clause' }>): FlowItem[] => {
    const x = MARGIN.left + INDENT;
    const width = CONTENT_WIDTH - INDENT;
    const headingLines = wrap(plain(block.heading), width, HEADING);
    const items = paragraphItems(headingLines, {
      x,
      width,
      style: HEADING,
      spaceBefore: 14,
      label: label(`${number}.`, MARGIN.left, HEADING),
    }).map((item) => ({ ...item, keepWithNext: true }));
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
              label: label(letter, lx, BODY),
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
          label: numbered ? label(`${number}.${paragraphNumber}`, x, BODY) : undefined,
        }),
      );
    }
    return items;
  };

  const details = (block: Extract<Block, { kind: 'details' }>): FlowItem[] => {
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

  const table = (block: Extract<Block, { kind: 'table' }>): FlowItem[] => {
    const pad = 5;
    const total = block.columns.reduce((s, c) => s + c.width, 0);
    const columns = block.columns.reduce<{ x: number; width: number; column: TableColumn }[]>(
      (acc, column) => {
        const prev = acc[acc.length - 1];
        const x = prev ? prev.x + prev.width : MARGIN.left;
        acc.push({ x, width: (column.width / total) * CONTENT_WIDTH, column });
        return acc;
      },
      [],
    );
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

  /** Two signature blocks a row; each has the party, an empty area over a line, and lines to fill. */
  const signatureRow = (parties: readonly SignatureParty[]): FlowItem => {
    const gap = 28;
    const columnWidth = (CONTENT_WIDTH - gap) / 2;
    const roleStyle: TextStyle = { size: 8.5, leading: 12, bold: true, color: MUTED };
    const nameStyle: TextStyle = { size: 10.5, leading: 14, bold: true };
    const fieldStyle: TextStyle = { size: 9, leading: 20, color: MUTED };
    const names = parties.map((p) => {
      const lines = wrap(plain(p.name), columnWidth, nameStyle);
      if (lines.length <= MAX_NAME_LINES) return lines;
      const kept = lines.slice(0, MAX_NAME_LINES - 1);
      const last = wrap(plain('…'), columnWidth, nameStyle);
      return [...kept, ...last];
    });
    const roleHeight =
      Math.max(...parties.map((p) => wrap(plain(p.role.toUpperCase()), columnWidth, roleStyle).length)) *
      roleStyle.leading;
    const nameHeight = Math.max(...names.map((n) => n.length)) * nameStyle.leading;
    const areaTop = roleHeight + nameHeight + 4;
    const lineY = areaTop + SIGNATURE_AREA_HEIGHT;
    const maxFields = Math.max(...parties.map((p) => p.lines.length));
    const height = lineY + 14 + maxFields * fieldStyle.leading;
    const ops: Op[] = [];
    const signatures: { x: number; y: number; width: number }[] = [];
    parties.forEach((party, i) => {
      const x = MARGIN.left + i * (columnWidth + gap);
      wrap(plain(party.role.toUpperCase()), columnWidth, roleStyle).forEach((l, k) =>
        ops.push(...lineOps(l, x, roleStyle, k * roleStyle.leading)),
      );
      (names[i] ?? []).forEach((l, k) =>
        ops.push(...lineOps(l, x, nameStyle, roleHeight + k * nameStyle.leading)),
      );
      ops.push(rule(x, x + columnWidth, lineY, 0.9, INK));
      const caption = wrap(plain('Signature'), columnWidth, SMALL);
      caption.forEach((l) => ops.push(...lineOps(l, x, SMALL, lineY + 1)));
      party.lines.forEach((field, k) => {
        const top = lineY + 14 + k * fieldStyle.leading;
        const [fieldLine] = wrap(plain(`${field}:`), 60, fieldStyle);
        if (fieldLine) ops.push(...lineOps(fieldLine, x, fieldStyle, top));
        ops.push(rule(x + 44, x + columnWidth, top + baselineOf(fieldStyle) + 2, 0.6, MUTED));
      });
      signatures.push({
        x: x + SIGNATURE_INSET,
        y: areaTop + SIGNATURE_INSET,
        width: Math.min(SIGNATURE_WIDTH, columnWidth - 2 * SIGNATURE_INSET),
      });
    });
    return { height, spaceBefore: 16, keepWithNext: false, ops, signatures };
  };

  const compose = (doc: ComposedDocument): FlowItem[] => {
    const items: FlowItem[] = paragraphItems(wrap(plain(doc.title), CONTENT_WIDTH, TITLE), {
      x: MARGIN.left,
      width: CONTENT_WIDTH,
      style: TITLE,
      spaceBefore: 0,
      align: 'center',
    }).map((item) => ({ ...item, keepWithNext: true }));
    if (doc.subtitle) {
      const style: TextStyle = { ...BODY, color: MUTED };
      items.push(
        ...paragraphItems(wrap(doc.subtitle, CONTENT_WIDTH, style), {
          x: MARGIN.left,
          width: CONTENT_WIDTH,
          style,
          spaceBefore: 2,
          align: 'center',
        }).map((item) => ({ ...item, keepWithNext: true })),
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
      if (block.kind === 'paragraph') items.push(...paragraph(block.text));
      else if (block.kind === 'clause') items.push(...clause((clauseNumber += 1), block));
      else if (block.kind === 'details') items.push(...details(block));
      else items.push(...table(block));
    }
    const heading = paragraphItems(wrap(plain('Signatures'), CONTENT_WIDTH, HEADING), {
      x: MARGIN.left,
      width: CONTENT_WIDTH,
      style: HEADING,
      spaceBefore: 22,
    }).map((item) => ({ ...item, keepWithNext: true }));
    const intro = paragraph(doc.signatures.intro, 4);
    const last = intro[intro.length - 1];
    if (last) last.keepWithNext = true;
    items.push(...heading, ...intro);
    for (let i = 0; i < doc.signatures.parties.length; i += 2)
      items.push(signatureRow(doc.signatures.parties.slice(i, i + 2)));
    return items;
  };

  return { compose };
};

interface LaidOutPage {
  ops: Op[];
}

/** Place items on pages: break before an item (or a chain of items kept together) that does not fit. */
const paginate = (items: FlowItem[]): { pages: LaidOutPage[]; signatures: TPosition[] } => {
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

const footerOps = (fonts: FontSet, title: string, pageNumber: number, pageCount: number): Op[] => {
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

/**
 * Scripts whose shaped glyphs are not in reading order (Indic vowel signs drawn before their
 * consonant, reph drawn after it): their runs carry /ActualText so that copying and text extraction
 * give the characters as typed.
 */
const REORDERED_SCRIPTS =
  /[\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Gurmukhi}\p{Script=Gujarati}\p{Script=Oriya}\p{Script=Tamil}\p{Script=Telugu}\p{Script=Kannada}\p{Script=Malayalam}\p{Script=Sinhala}]/u;

/**
 * An inline marked-content property list `<< /ActualText <hex> >>`. The text is written as UTF-16
 * hex digits, like every other string here, so it cannot break out as syntax.
 */
const actualTextProperties = (text: string): string =>
  `<< /ActualText ${PDFHexString.fromText(text).toString()} >>`;

const subsetTag = (): string =>
  Array.from({ length: 6 }, () => String.fromCharCode(65 + Math.floor(Math.random() * 26))).join('');

/**
 * Render a composed document to PDF: title, numbered clauses, wrapped paragraphs, page breaks that
 * never leave a heading or a single line alone, "Page n of m" on every page and a signature block per
 * party. Every value is drawn as glyphs of an embedded subset font, never as PDF syntax.
 */
export const renderDocument = async (
  doc: ComposedDocument,
  options: { fonts: FontSet; subject?: string; now?: Date },
): Promise<RenderedDocument> => {
  const { fonts } = options;
  const items = createComposer(fonts).compose(doc);
  const { pages, signatures } = paginate(items);

  const pdf = await PDFDocument.create({ updateMetadata: false });
  // Fonts were parsed at start-up: hand pdf-lib the parsed font instead of parsing the bytes again.
  const byBytes = new Map<Uint8Array, ReturnType<FontSet['get']>>();
  for (const key of [
    'sans',
    'sansBold',
    'arabic',
    'hebrew',
    'thai',
    'japanese',
    'hanzi',
    'hangul',
  ] as const) {
    const loaded = fonts.get(key);
    byBytes.set(loaded.bytes, loaded);
  }
  pdf.registerFontkit({
    create: (bytes: Uint8Array) => {
      const loaded = byBytes.get(bytes);
      if (!loaded) throw new Error('unknown font bytes');
      return loaded.font;
    },
  });
  const embedded = new Map<FontKey, PDFFont>();
  const fontOf = async (key: FontKey): Promise<PDFFont> => {
    const existing = embedded.get(key);
    if (existing) return existing;
    const loaded = fonts.get(key);
    const font = await pdf.embedFont(loaded.bytes, {
      subset: true,
      features: loaded.features,
      customName: `${subsetTag()}+${loaded.font.postscriptName ?? key}`,
    });
    embedded.set(key, font);
    return font;
  };

  for (const [index, laidOut] of pages.entries()) {
    const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    for (const op of [...laidOut.ops, ...footerOps(fonts, doc.title, index + 1, pages.length)]) {
      if (op.kind === 'line') {
        page.drawLine({
          start: { x: op.x1, y: PAGE_HEIGHT - op.y1 },
          end: { x: op.x2, y: PAGE_HEIGHT - op.y2 },
          thickness: op.thickness,
          color: op.color,
        });
      } else {
        const font = await fontOf(op.run.font);
        const actualText = REORDERED_SCRIPTS.test(op.run.text);
        if (actualText) {
          page.pushOperators(
            PDFOperator.of(PDFOperatorNames.BeginMarkedContentSequence, [
              PDFName.of('Span'),
              actualTextProperties(op.run.text),
            ]),
          );
        }
        page.drawText(op.run.text, {
          x: op.x,
          y: PAGE_HEIGHT - op.baseline,
          size: op.run.size * fonts.get(op.run.font).scale,
          font,
          color: op.color,
        });
        if (actualText) page.pushOperators(PDFOperator.of(PDFOperatorNames.EndMarkedContent));
      }
    }
  }
  const now = options.now ?? new Date();
  pdf.setTitle(`${doc.title}${doc.subtitle ? ` — ${inlineText(doc.subtitle)}` : ''}`.slice(0, 500));
  if (options.subject) pdf.setSubject(options.subject);
  pdf.setCreator('esign template service');
  pdf.setProducer('esign (pdf-lib)');
  pdf.setCreationDate(now);
  pdf.setModificationDate(now);
  const bytes = await pdf.save();
  return { bytes, pageCount: pages.length, positions: signatures };
};
