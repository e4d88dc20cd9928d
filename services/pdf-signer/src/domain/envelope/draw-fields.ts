import type { PDFPage } from 'pdf-lib';
import { ServiceError } from '@esign/contracts';
import type { TEnvelopeField } from '@esign/contracts';
import { createLineMaker } from '../audit/add-audit-page';
import type { FontLibrary } from '../layout/font-library';
import { cleanText } from '../layout/layout-text';
import { createPageContent, matrixOps, num } from '../layout/page-content';
import type { DocumentFonts, PageContent } from '../layout/page-content';
import { pageFrameOf } from '../layout/page-frame';
import type { PageFrame, VisibleBox } from '../layout/page-frame';
import { drawSignature } from '../stamp/stamp-signatures';
import type { PreparedSignature } from '../stamp/stamp-signatures';

/** A field with the value the signer gave it (absent: an optional field left empty). */
export interface FilledField {
  readonly field: TEnvelopeField;
  readonly value?: string | boolean;
  /** The prepared form field it fills (`r<i>f<j>`), when the caller knows it. */
  readonly fieldName?: string;
}

/** Percent of the page a field may reach past an edge (rounding in the caller's arithmetic). */
const EDGE_TOLERANCE = 0.01;
/** Smallest font size a value is shrunk to; past it, it is clipped at the box's edge. */
const MIN_TEXT_SIZE = 4;
/** Inner margin of a text box, as a share of its height. */
const TEXT_PADDING = 0.1;
const TEXT_COLOR = '0.05 0.1 0.3 rg';

const pagesLabel = (n: number) => `${n} page${n === 1 ? '' : 's'}`;

const refuse = (field: string, message: string): never => {
  throw new ServiceError('invalid_argument', `${field}: ${message}`, field);
};

/**
 * A field's box in visible points (origin top-left), as ZEnvelopeField describes it: `width`% of the
 * visible width; `height`% of the visible height, or by default a third of the width (signature,
 * initials), the width (checkbox) or 3% of the page's height (one line of text).
 */
export const fieldBox = (frame: { width: number; height: number }, field: TEnvelopeField): VisibleBox => {
  const width = (frame.width * field.width) / 100;
  const height =
    field.height !== undefined
      ? (frame.height * field.height) / 100
      : field.type === 'signature' || field.type === 'initials'
        ? width / 3
        : field.type === 'checkbox'
          ? width
          : frame.height * 0.03;
  return { x: (frame.width * field.x) / 100, y: (frame.height * field.y) / 100, width, height };
};

/**
 * Refuse what cannot be drawn, naming the field at fault (`fields.<j>`): a page the document lacks, a
 * box that leaves its page, an initials field without initials, a value of the wrong kind, a
 * required field left empty; and a revision without a signature field (`fields`).
 */
export const checkFields = (
  fields: readonly FilledField[],
  pages: readonly PDFPage[],
  hasInitials: boolean,
): void => {
  fields.forEach(({ field, value }, j) => {
    const at = `fields.${j}`;
    const page = pages[field.page];
    if (!page) {
      refuse(
        `${at}.page`,
        `page ${field.page} does not exist (the document has ${pagesLabel(pages.length)})`,
      );
      return;
    }
    const frame = pageFrameOf(page);
    const box = fieldBox(frame, field);
    const tolerance = (EDGE_TOLERANCE / 100) * Math.max(frame.width, frame.height);
    if (box.x + box.width > frame.width + tolerance || box.y + box.height > frame.height + tolerance) {
      refuse(
        at,
        `the ${field.type} field's box leaves page ${field.page} (x ${field.x}% + width ${field.width}%, y ${field.y}% + ` +
          `height ${num((box.height / frame.height) * 100)}% must stay within 100%)`,
      );
    }
    if (field.type === 'initials' && !hasInitials) {
      refuse(at, 'an initials field needs the signer\'s initials (request field "initials")');
    }
    if (field.type === 'checkbox') {
      if (value !== undefined && typeof value !== 'boolean')
        refuse(`${at}.value`, 'a checkbox takes true or false');
      return;
    }
    if (field.type === 'signature' || field.type === 'initials') return;
    if (value !== undefined && typeof value !== 'string')
      refuse(`${at}.value`, `a ${field.type} field takes text`);
    if (field.required && (value === undefined || cleanText(String(value)).trim() === '')) {
      refuse(`${at}.value`, `the ${field.type} field is required and has no value`);
    }
  });
  if (!fields.some(({ field }) => field.type === 'signature')) {
    refuse('fields', "a signer's revision needs at least one signature field");
  }
};

/** `box`'s largest sub-box of the given aspect (height / width), centred in it. */
export const fitAspect = (box: VisibleBox, aspect: number): VisibleBox => {
  let width = box.width;
  let height = width * aspect;
  if (height > box.height) {
    height = box.height;
    width = height / aspect;
  }
  return { x: box.x + (box.width - width) / 2, y: box.y + (box.height - height) / 2, width, height };
};

/** A value on one line inside its box: as large as the box's height allows, shrunk to its width, clipped. */
export const drawText = (
  content: PageContent,
  frame: PageFrame,
  box: VisibleBox,
  text: string,
  make: ReturnType<typeof createLineMaker>,
) => {
  const line = make.value(text);
  if (line.width <= 0) return;
  const pad = box.height * TEXT_PADDING;
  const byHeight = (box.height - 2 * pad) / (line.ascent - line.descent);
  const byWidth = (box.width - 2 * pad) / line.width;
  const size = Math.max(Math.min(byHeight, byWidth), Math.min(MIN_TEXT_SIZE, byHeight));
  const y = box.height / 2 - ((line.ascent + line.descent) * size) / 2;
  content.push(
    'q',
    matrixOps(frame.boxMatrix(box)),
    `0 0 ${num(box.width)} ${num(box.height)} re W n`,
    TEXT_COLOR,
  );
  content.drawLine(line, { x: pad, y, size });
  content.push('Q');
};

/** A tick inside the box (a checked checkbox). */
export const drawTick = (content: PageContent, frame: PageFrame, box: VisibleBox) => {
  const side = Math.min(box.width, box.height);
  const inner = fitAspect(box, 1);
  const p = (u: number, v: number) => `${num(u * side)} ${num(v * side)}`;
  content.push(
    'q',
    matrixOps(frame.boxMatrix(inner)),
    `0 0 ${num(side)} ${num(side)} re W n`,
    '0.05 0.1 0.3 RG 1 J 1 j',
    `${num(Math.max(0.8, side * 0.12))} w`,
    `${p(0.18, 0.52)} m ${p(0.42, 0.24)} l ${p(0.84, 0.8)} l S`,
    'Q',
  );
};

/**
 * Draw a signer's fields on their pages, upright as a person sees each page whatever its /Rotate and
 * crop box: signature and initials fields take the adopted signature and initials (as large as fit,
 * centred), date/name/email/text fields their value on one line (shrunk to fit the box, clipped at
 * its edge; Helvetica when WinAnsi can show it, else the embedded Noto fallback), a checked checkbox a
 * tick. One new content stream per page that has fields. Run `checkFields` first.
 */
export const drawFields = (options: {
  pages: readonly PDFPage[];
  fields: readonly FilledField[];
  signature: PreparedSignature;
  initials?: PreparedSignature;
  library: FontLibrary;
  fonts: DocumentFonts;
}): void => {
  const { pages, fields, signature, initials, fonts } = options;
  const make = createLineMaker(options.library);
  const byPage = new Map<number, FilledField[]>();
  for (const filled of fields)
    byPage.set(filled.field.page, [...(byPage.get(filled.field.page) ?? []), filled]);
  for (const [index, onPage] of byPage) {
    const page = pages[index];
    if (!page) continue;
    const frame = pageFrameOf(page);
    const content = createPageContent(page, fonts);
    for (const { field, value } of onPage) {
      const box = fieldBox(frame, field);
      if (field.type === 'signature' || field.type === 'initials') {
        const prepared = field.type === 'signature' ? signature : initials;
        if (prepared) drawSignature(content, frame, fitAspect(box, prepared.aspect), prepared);
      } else if (field.type === 'checkbox') {
        if (value === true) drawTick(content, frame, box);
      } else if (typeof value === 'string') {
        const text = cleanText(value).replace(/\s+/g, ' ').trim();
        if (text !== '') drawText(content, frame, box, text, make);
      }
    }
    content.commit();
  }
};
