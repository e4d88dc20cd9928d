import { PDFArray, PDFDict, PDFName, PDFNumber, PDFRef, PDFString } from 'pdf-lib';
import type { PDFDocument, PDFPage } from 'pdf-lib';
import { ServiceError } from '@esign/contracts';
import type { TEnvelopeField } from '@esign/contracts';
import { createLineMaker, wrapValue } from '../audit/add-audit-page';
import { pdfText } from '../audit/write-audit-metadata';
import type { FontLibrary } from '../layout/font-library';
import { cleanText } from '../layout/layout-text';
import { createFormContent, HELVETICA } from '../layout/page-content';
import type { DocumentFonts, DrawableLine } from '../layout/page-content';
import { pageFrameOf } from '../layout/page-frame';
import type { Matrix, PageFrame, VisibleBox } from '../layout/page-frame';
import { drawSignature } from '../stamp/stamp-signatures';
import type { PreparedSignature } from '../stamp/stamp-signatures';
import { drawText, drawTick, fieldBox, fitAspect } from './draw-fields';
import type { FilledField } from './draw-fields';

/**
 * An envelope's form: every field of every recipient is made at revision 0 as an AcroForm field whose
 * widget sits at the field's box, so that each signer's revision and the completion only fill fields
 * and sign (what Acrobat allows after an approval signature) and never touch a page.
 *
 * Names: `r<i>f<j>` (recipient i of the envelope's list, field j of theirs), `seal` (the service's
 * invisible signature field) and `certificate<k>` (the certificate of completion's body, k from 1).
 */
export const fieldNameOf = (recipient: number, field: number): string => `r${recipient}f${field}`;
export const SEAL_FIELD = 'seal';
export const certificateFieldName = (k: number): string => `certificate${k + 1}`;

/** What a field becomes in the form. */
export type FormKind = 'signature' | 'image' | 'text' | 'checkbox';

const T = PDFName.of('T');
const FT = PDFName.of('FT');
const V = PDFName.of('V');
const AS = PDFName.of('AS');
const AP = PDFName.of('AP');
const P = PDFName.of('P');
const RECT = PDFName.of('Rect');
const FIELDS = PDFName.of('Fields');
const YES = PDFName.of('Yes');
const OFF = PDFName.of('Off');

const READ_ONLY = 1;
const MULTILINE = 1 << 12;
const PUSHBUTTON = 1 << 16;
/** Annotation flag Print. */
const PRINT = 4;
/** Annotation flags Print | Locked. */
const PRINT_LOCKED = 132;

/** The kinds of a recipient's fields: the first signature field holds their signature; later ones and initials show images. */
export const formKindsOf = (fields: readonly TEnvelopeField[]): FormKind[] => {
  const first = fields.findIndex((f) => f.type === 'signature');
  return fields.map((f, j) =>
    j === first
      ? 'signature'
      : f.type === 'signature' || f.type === 'initials'
        ? 'image'
        : f.type === 'checkbox'
          ? 'checkbox'
          : 'text',
  );
};

/** A box (visible points, origin top-left) as a widget's /Rect in default user space, and the rotation of its appearance. */
export const widgetGeometry = (
  frame: PageFrame,
  box: VisibleBox,
): { rect: [number, number, number, number]; matrix: Matrix } => {
  const m = frame.boxMatrix(box);
  const corners = [
    [0, 0],
    [box.width, 0],
    [0, box.height],
    [box.width, box.height],
  ].map(([u = 0, v = 0]) => [m[0] * u + m[2] * v + m[4], m[1] * u + m[3] * v + m[5]] as const);
  const xs = corners.map((c) => c[0]);
  const ys = corners.map((c) => c[1]);
  const round = (n: number) => Math.round(n * 1000) / 1000;
  return {
    rect: [round(Math.min(...xs)), round(Math.min(...ys)), round(Math.max(...xs)), round(Math.max(...ys))],
    matrix: [m[0], m[1], m[2], m[3], 0, 0],
  };
};

/** The frame of an appearance stream: box-local points, upright, origin top-left as seen. */
const localFrame = (width: number, height: number): PageFrame => ({
  width,
  height,
  rotate: 0,
  boxMatrix: (b) => [1, 0, 0, 1, b.x, height - b.y - b.height],
});

/** An appearance for a widget `box` on `frame`'s page, drawn in box-local points by `draw`. */
const appearance = (
  doc: PDFDocument,
  fonts: DocumentFonts,
  frame: PageFrame | undefined,
  box: VisibleBox,
  draw?: (content: ReturnType<typeof createFormContent>, local: PageFrame) => void,
  marked?: boolean,
): PDFRef => {
  const matrix = frame ? widgetGeometry(frame, box).matrix : undefined;
  const content = createFormContent(doc, fonts, {
    width: box.width,
    height: box.height,
    ...(matrix ? { matrix } : {}),
  });
  if (marked) content.push('/Tx BMC');
  draw?.(content, localFrame(box.width, box.height));
  if (marked) content.push('EMC');
  return content.ref();
};

/** Add a field (field and widget in one dictionary) on `page` at `rect` and to the form. */
const addField = (
  doc: PDFDocument,
  page: PDFPage,
  name: string,
  entries: Record<string, unknown>,
  rect: readonly number[],
  rotate: number,
): PDFDict => {
  const { context } = doc;
  const dict = context.obj({
    Type: 'Annot',
    Subtype: 'Widget',
    Rect: [...rect],
    P: page.ref,
    ...(rotate ? { MK: { R: rotate } } : {}),
  });
  for (const [key, value] of Object.entries(entries)) {
    if (value instanceof PDFRef || value instanceof PDFDict || value instanceof PDFName)
      dict.set(PDFName.of(key), value);
    else dict.set(PDFName.of(key), context.obj(value as never));
  }
  dict.set(T, PDFString.of(name));
  const ref = context.register(dict);
  page.node.addAnnot(ref);
  doc.catalog.getOrCreateAcroForm().addField(ref);
  return dict;
};

/** The form's defaults: Helvetica as /Helv for text fields, and SigFlags set before the first signature. */
const prepareAcroForm = (doc: PDFDocument, fonts: DocumentFonts) => {
  const form = doc.catalog.getOrCreateAcroForm().dict;
  const helvetica = fonts.standard(HELVETICA).ref;
  const dr = form.lookupMaybe(PDFName.of('DR'), PDFDict) ?? doc.context.obj({});
  const fontDict = dr.lookupMaybe(PDFName.of('Font'), PDFDict) ?? doc.context.obj({});
  fontDict.set(PDFName.of('Helv'), helvetica);
  dr.set(PDFName.of('Font'), fontDict);
  form.set(PDFName.of('DR'), dr);
  form.set(PDFName.of('DA'), PDFString.of('/Helv 0 Tf 0 g'));
  // SignaturesExist | AppendOnly: set now, so that no signature's revision has to change it.
  form.set(PDFName.of('SigFlags'), PDFNumber.of(3));
};

/**
 * Revision 0's fields: every recipient's field at its box (signature, image, text or checkbox as
 * `formKindsOf` says), read-only except signature fields. Refuses, as `pdf.sign-revision` does, a box
 * on a page the document lacks (`recipients.<i>.fields.<j>.page`).
 */
export const addRecipientFields = (options: {
  doc: PDFDocument;
  recipients: readonly { readonly fields: readonly TEnvelopeField[] }[];
  fonts: DocumentFonts;
}): number => {
  const { doc, recipients, fonts } = options;
  const pages = doc.getPages();
  prepareAcroForm(doc, fonts);
  let count = 0;
  recipients.forEach((recipient, i) => {
    const kinds = formKindsOf(recipient.fields);
    recipient.fields.forEach((field, j) => {
      const page = pages[field.page];
      if (!page) {
        const at = `recipients.${i}.fields.${j}.page`;
        throw new ServiceError(
          'invalid_argument',
          `${at}: page ${field.page} does not exist (the document has ${pages.length} pages)`,
          at,
        );
      }
      const frame = pageFrameOf(page);
      const box = fieldBox(frame, field);
      const { rect } = widgetGeometry(frame, box);
      const blank = () => ({ N: appearance(doc, fonts, frame, box) });
      const name = fieldNameOf(i, j);
      const kind = kinds[j];
      if (kind === 'signature') {
        addField(doc, page, name, { FT: PDFName.of('Sig'), F: PRINT, AP: blank() }, rect, frame.rotate);
      } else if (kind === 'image') {
        addField(
          doc,
          page,
          name,
          { FT: PDFName.of('Btn'), Ff: PUSHBUTTON | READ_ONLY, F: PRINT, AP: blank() },
          rect,
          frame.rotate,
        );
      } else if (kind === 'checkbox') {
        const yes = appearance(doc, fonts, frame, box, (content, local) =>
          drawTick(content, local, { x: 0, y: 0, width: box.width, height: box.height }),
        );
        const off = appearance(doc, fonts, frame, box);
        const ap = doc.context.obj({ N: { Yes: yes, Off: off } });
        addField(
          doc,
          page,
          name,
          { FT: PDFName.of('Btn'), Ff: READ_ONLY, F: PRINT, V: OFF, AS: OFF, AP: ap },
          rect,
          frame.rotate,
        );
      } else {
        addField(
          doc,
          page,
          name,
          {
            FT: PDFName.of('Tx'),
            Ff: READ_ONLY,
            F: PRINT,
            DA: PDFString.of('/Helv 0 Tf 0 g'),
            AP: { N: appearance(doc, fonts, frame, box, undefined, true) },
          },
          rect,
          frame.rotate,
        );
      }
      count += 1;
    });
  });
  return count;
};

/** The certificate's body fields (read-only, multiline) at `rect` on each page, and the seal's invisible field. */
export const addCertificateFields = (options: {
  doc: PDFDocument;
  bodies: readonly { readonly page: PDFPage; readonly rect: readonly [number, number, number, number] }[];
  fonts: DocumentFonts;
}): void => {
  const { doc, bodies, fonts } = options;
  bodies.forEach(({ page, rect }, k) => {
    const box = { x: 0, y: 0, width: rect[2] - rect[0], height: rect[3] - rect[1] };
    addField(
      doc,
      page,
      certificateFieldName(k),
      {
        FT: PDFName.of('Tx'),
        Ff: READ_ONLY | MULTILINE,
        F: PRINT,
        DA: PDFString.of('/Helv 0 Tf 0 g'),
        AP: { N: appearance(doc, fonts, undefined, box, undefined, true) },
      },
      rect,
      0,
    );
  });
  const first = bodies[0]?.page;
  if (!first) throw new Error('the certificate of completion has no page');
  addField(doc, first, SEAL_FIELD, { FT: PDFName.of('Sig'), F: PRINT_LOCKED }, [0, 0, 0, 0], 0);
};

/** The form's fields by name (terminal fields of /Fields, one level of /Kids). */
export const formFields = (doc: PDFDocument): Map<string, PDFDict> => {
  const fields = new Map<string, PDFDict>();
  const form = doc.catalog.lookup(PDFName.of('AcroForm'));
  const list = form instanceof PDFDict ? form.lookup(FIELDS) : undefined;
  if (!(list instanceof PDFArray)) return fields;
  for (let i = 0; i < list.size(); i++) {
    const field = list.lookup(i);
    if (!(field instanceof PDFDict)) continue;
    const name = field.lookup(T);
    if (name instanceof PDFString) fields.set(name.decodeText(), field);
  }
  return fields;
};

const rectOf = (dict: PDFDict): number[] | undefined => {
  const rect = dict.lookup(RECT);
  if (!(rect instanceof PDFArray) || rect.size() !== 4) return undefined;
  return rect.asArray().map((n) => (n instanceof PDFNumber ? n.asNumber() : NaN));
};

/** True when the envelope's document was prepared (revision 0 made its fields). */
export const isPrepared = (fields: ReadonlyMap<string, PDFDict>): boolean =>
  [...fields.keys()].some((name) => /^r\d+f\d+$/.test(name)) || fields.has(SEAL_FIELD);

const expectedType = (field: TEnvelopeField): string =>
  field.type === 'signature' || field.type === 'initials' || field.type === 'checkbox' ? 'Btn' : 'Tx';

/** The recipient index in a field's name (`r<i>f<j>`). */
const recipientOf = (name: string): string | undefined => /^r(\d+)f\d+$/.exec(name)?.[1];

const isUnfilled = (dict: PDFDict) => dict.get(V) === undefined || dict.get(V) === OFF;

/**
 * The prepared field each of a signer's fields fills: by `fieldName` when given, else by its box on its
 * page (the widget's /Rect as revision 0 computed it). When two recipients' boxes coincide, the fields
 * of the recipient whose signature field is still unsigned are taken (unfilled ones first). Refuses a
 * field the document has no form field for (`fields.<j>`).
 */
export const matchFields = (
  doc: PDFDocument,
  fields: ReadonlyMap<string, PDFDict>,
  filled: readonly FilledField[],
): PDFDict[] => {
  const pages = doc.getPages();
  const candidatesOf = ({ field, fieldName }: FilledField): [string, PDFDict][] => {
    const named = fieldName ? fields.get(fieldName) : undefined;
    if (fieldName && named) return [[fieldName, named]];
    const page = pages[field.page];
    if (!page) return [];
    const frame = pageFrameOf(page);
    const want = widgetGeometry(frame, fieldBox(frame, field)).rect;
    return [...fields.entries()].filter(([name, dict]) => {
      if (recipientOf(name) === undefined || dict.get(P) !== page.ref) return false;
      const type = dict.lookup(FT);
      const typeName = type instanceof PDFName ? type.decodeText() : '';
      if (typeName !== expectedType(field) && !(field.type === 'signature' && typeName === 'Sig'))
        return false;
      const rect = rectOf(dict);
      return rect !== undefined && rect.every((n, k) => Math.abs(n - (want[k] ?? NaN)) < 0.05);
    });
  };
  const candidates = filled.map(candidatesOf);
  // The signer: the recipient of their (first) unsigned signature field.
  const signer = candidates
    .flat()
    .filter(([, dict]) => dict.lookup(FT) === PDFName.of('Sig') && isUnfilled(dict))
    .map(([name]) => recipientOf(name))[0];
  const taken = new Set<PDFDict>();
  return candidates.map((list, j) => {
    const free = list.filter(([, dict]) => !taken.has(dict));
    const theirs = free.filter(([name]) => recipientOf(name) === signer);
    const pool = theirs.length > 0 ? theirs : free;
    const found = (pool.find(([, dict]) => isUnfilled(dict)) ?? pool[0])?.[1];
    if (!found) {
      const at = `fields.${j}`;
      throw new ServiceError(
        'invalid_argument',
        `${at}: the envelope's document has no form field for this field (page ${(filled[j]?.field.page ?? 0) + 1})`,
        at,
      );
    }
    taken.add(found);
    return found;
  });
};

/**
 * Fill a signer's prepared fields: text fields get their value and an appearance (Helvetica when
 * WinAnsi can show it, else embedded Noto, on one line shrunk to fit), checked checkboxes /V and /AS
 * /Yes, image fields and the signature field an appearance showing the adopted signature or initials.
 * Returns the signature field to sign (the signer's first signature field).
 */
export const fillFields = (options: {
  doc: PDFDocument;
  filled: readonly FilledField[];
  targets: readonly PDFDict[];
  signature: PreparedSignature;
  initials?: PreparedSignature;
  library: FontLibrary;
  fonts: DocumentFonts;
}): PDFDict | undefined => {
  const { doc, filled, targets, signature, initials, fonts } = options;
  const make = createLineMaker(options.library);
  const pages = doc.getPages();
  let signatureField: PDFDict | undefined;
  filled.forEach(({ field, value }, j) => {
    const dict = targets[j];
    const page = pages[field.page];
    if (!dict || !page) return;
    const frame = pageFrameOf(page);
    const box = fieldBox(frame, field);
    const whole = { x: 0, y: 0, width: box.width, height: box.height };
    const type = dict.lookup(FT);
    if (type === PDFName.of('Sig') && !signatureField && field.type === 'signature') signatureField = dict;
    if (field.type === 'signature' || field.type === 'initials') {
      const prepared = field.type === 'signature' ? signature : initials;
      if (!prepared) return;
      const ref = appearance(doc, fonts, frame, box, (content, local) =>
        drawSignature(content, local, fitAspect(whole, prepared.aspect), prepared),
      );
      dict.set(AP, doc.context.obj({ N: ref }));
    } else if (field.type === 'checkbox') {
      if (value === true) {
        dict.set(V, YES);
        dict.set(AS, YES);
      }
    } else if (typeof value === 'string') {
      const text = cleanText(value).replace(/\s+/g, ' ').trim();
      if (text === '') return;
      dict.set(V, pdfText(text));
      const ref = appearance(
        doc,
        fonts,
        frame,
        box,
        (content, local) => drawText(content, local, whole, text, make),
        true,
      );
      dict.set(AP, doc.context.obj({ N: ref }));
    }
  });
  return signatureField;
};

/** A paragraph of the certificate's body: text, bold or not, its size relative to the body's, indent. */
export interface BodyItem {
  readonly text: string;
  readonly bold?: boolean;
  readonly scale?: number;
  readonly indent?: number;
  readonly gapAfter?: number;
  readonly color?: string;
}

const MAX_BODY_SIZE = 9;
const MIN_BODY_SIZE = 4;
const BODY_PADDING = 2;

/**
 * Lay the certificate's body out over its fields, the font as large as lets everything fit (9 pt down
 * to 4 pt, wrapped to each field's width), and fill each field (/V its text, /AP the lines). Past 4 pt
 * the rest is cut with "…". Returns the font size used.
 */
export const fillCertificateFields = (options: {
  doc: PDFDocument;
  fields: readonly PDFDict[];
  items: readonly BodyItem[];
  library: FontLibrary;
  fonts: DocumentFonts;
}): number => {
  const { doc, fields, items, library, fonts } = options;
  const make = createLineMaker(library);
  const boxes = fields.map((dict) => {
    const rect = rectOf(dict) ?? [0, 0, 0, 0];
    return { width: (rect[2] ?? 0) - (rect[0] ?? 0), height: (rect[3] ?? 0) - (rect[1] ?? 0) };
  });
  const width = Math.min(...boxes.map((b) => b.width)) - 2 * BODY_PADDING;
  type Placed = { line: DrawableLine; text: string; size: number; y: number; indent: number; color: string };
  const layout = (size: number): { pages: Placed[][]; fits: boolean } => {
    const pages: Placed[][] = boxes.map(() => []);
    let k = 0;
    let y = (boxes[0]?.height ?? 0) - BODY_PADDING;
    for (const item of items) {
      const itemSize = size * (item.scale ?? 1);
      const indent = item.indent ?? 0;
      const text = cleanText(item.text);
      const lines = item.bold
        ? [{ line: make.fixed(text, true), text }]
        : (() => {
            const wrapped = wrapValue({ text, library, size: itemSize, maxWidth: width - indent });
            return wrapped.lines.map((line, i) => ({ line, text: wrapped.texts[i] ?? '' }));
          })();
      for (const [i, { line, text: lineText }] of lines.entries()) {
        const height = (line.ascent - line.descent) * itemSize * 1.15;
        if (y - height < BODY_PADDING) {
          k += 1;
          if (k >= boxes.length) return { pages, fits: false };
          y = (boxes[k]?.height ?? 0) - BODY_PADDING;
        }
        pages[k]?.push({
          line,
          text: lineText,
          size: itemSize,
          y: y - line.ascent * itemSize,
          indent,
          color: item.color ?? '0 0 0 rg',
        });
        y -= height + (i === lines.length - 1 ? (item.gapAfter ?? 0) * (size / MAX_BODY_SIZE) : 0);
      }
    }
    return { pages, fits: true };
  };
  let size = MAX_BODY_SIZE;
  let laid = layout(size);
  while (!laid.fits && size > MIN_BODY_SIZE) {
    size = Math.max(MIN_BODY_SIZE, size - 0.5);
    laid = layout(size);
  }
  if (!laid.fits) {
    const last = laid.pages[laid.pages.length - 1];
    const end = last?.[last.length - 1];
    if (last && end) last[last.length - 1] = { ...end, line: make.value('…'), text: '…' };
  }
  fields.forEach((dict, k) => {
    const placed = laid.pages[k] ?? [];
    const box = boxes[k] ?? { width: 0, height: 0 };
    dict.set(V, pdfText(placed.map((p) => p.text).join('\n')));
    const ref = appearance(
      doc,
      fonts,
      undefined,
      { x: 0, y: 0, width: box.width, height: box.height },
      (content) => {
        for (const p of placed) {
          content.push(p.color);
          content.drawLine(p.line, { x: BODY_PADDING + p.indent, y: p.y, size: p.size });
        }
      },
      true,
    );
    dict.set(AP, doc.context.obj({ N: ref }));
  });
  return size;
};
