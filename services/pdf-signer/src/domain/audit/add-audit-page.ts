import { PDFName } from 'pdf-lib';
import type { PDFDocument, PDFPage } from 'pdf-lib';
import type { TSigner } from '@esign/contracts';
import type { FontLibrary } from '../layout/font-library';
import { cleanText, estimateClusterAdvance, graphemeClusters, layoutLine } from '../layout/layout-text';
import { createPageContent, HELVETICA, HELVETICA_BOLD } from '../layout/page-content';
import { qrImage, qrMatrix } from './qr-code';
import { standardFontMetrics } from '../layout/standard-font-metrics';
import type { StandardFontMetrics } from '../layout/standard-font-metrics';
import { wrapText } from '../layout/wrap-text';
import type { DocumentFonts, DrawableLine, StandardFace } from '../layout/page-content';

/** What the audit page states (the same facts go into the document metadata). */
export interface AuditFacts {
  readonly auditId: string;
  readonly fileName: string;
  readonly signer: TSigner;
  /** ISO 8601 UTC. */
  readonly signedAt: string;
  readonly receivedAt: string;
  /** `sha256:<hex>` of the uploaded original. */
  readonly originalHash: string;
  readonly mode: 'draw' | 'type' | 'upload';
  readonly signatureCount: number;
  /** 1-based numbers of the pages that carry a signature. */
  readonly signedPages: readonly number[];
  /** Pages of the original document (the audit page comes after them). */
  readonly originalPageCount: number;
  readonly certificate: { readonly subject: string; readonly fingerprint256: string };
  /**
   * Whether the signature gets an RFC 3161 timestamp. Its time and authority cannot be printed: the
   * page and metadata are signed, and the timestamp is made over that signature, after them.
   */
  readonly timestamped: boolean;
  /** Where anyone can check this document (printed, and as a QR code); none when not configured. */
  readonly verifyUrl?: string;
}

/** What the audit page and metadata say about the signature timestamp. */
export const timestampStatement = (timestamped: boolean): string =>
  timestamped
    ? 'RFC 3161 token from a time-stamping authority, embedded in the digital signature ' +
      '(its time and authority: pdfsig, or the event document.sealed of the audit log)'
    : 'none (time-stamping was turned off on the signing server)';

/** A4 portrait, whatever the document's page size: one predictable layout for every audit page. */
export const AUDIT_PAGE_SIZE: readonly [number, number] = [595.28, 841.89];

const MARGIN = 56;
const CONTENT_WIDTH = AUDIT_PAGE_SIZE[0] - 2 * MARGIN;
/** Longest value drawn; longer ones (a pathological user agent) end with an ellipsis. The metadata keeps them whole. */
const MAX_VALUE_CHARS = 600;
const MAX_VALUE_LINES = 6;
const HELVETICA_ASCENT = 0.718;
const HELVETICA_DESCENT = -0.207;

/** Side of the QR code of the verification address (points, quiet zone not included): 2.8 cm. */
const QR_SIDE = 80;
const QR_MIN_BOTTOM = 24;

const MODE_NAMES = { draw: 'drawn', type: 'typed', upload: 'uploaded image' } as const;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

const codePointLabel = (ch: string) =>
  `U+${(ch.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

/** Lines of fixed text kept by a line maker (`fixedOnce`); cleared when full. */
const MAX_FIXED_LINES = 512;

export type LineMaker = ReturnType<typeof makeLineMaker>;

const makeLineMaker = (library: FontLibrary) => {
  const helvetica = standardFontMetrics(library.helvetica);
  const helveticaBold = standardFontMetrics(library.helveticaBold);
  const standardLine = (text: string, face: StandardFace): DrawableLine => {
    const width = (face === HELVETICA_BOLD ? helveticaBold : helvetica).widthOfTextAtSize(text, 1);
    return {
      pieces: [{ face, text, width }],
      width,
      ascent: HELVETICA_ASCENT,
      descent: HELVETICA_DESCENT,
      rtl: false,
      unsupported: [],
    };
  };
  const isWinAnsi = (text: string) => {
    for (const ch of text) if (!library.winAnsi.has(ch.codePointAt(0) ?? 0)) return false;
    return true;
  };
  const fixedLines = new Map<string, DrawableLine>();
  return {
    /** Fixed English text (labels, headings, notes). */
    fixed: (text: string, bold = false) => standardLine(text, bold ? HELVETICA_BOLD : HELVETICA),
    /**
     * Fixed text that recurs on every page this process draws (labels, headings, the fixed
     * paragraphs' lines): measured and encoded once. Never signer data.
     */
    fixedOnce(text: string, bold = false): DrawableLine {
      const key = bold ? `b${text}` : `r${text}`;
      let line = fixedLines.get(key);
      if (!line) {
        const face = bold ? HELVETICA_BOLD : HELVETICA;
        const made = standardLine(text, face);
        const hex = (bold ? helveticaBold : helvetica).encodeText(text);
        line = { ...made, pieces: [{ face, text, width: made.width, hex }] };
        if (fixedLines.size >= MAX_FIXED_LINES) fixedLines.clear();
        fixedLines.set(key, line);
      }
      return line;
    },
    /** User-supplied text; characters no font has are shown as their code point (U+XXXX). */
    value(text: string): DrawableLine {
      if (isWinAnsi(text)) return standardLine(text, HELVETICA);
      const line = layoutLine(text, library.sans);
      if (line.unsupported.length === 0) return line;
      const missing = new Set(line.unsupported);
      const replaced = [...text].map((ch) => (missing.has(ch) ? `[${codePointLabel(ch)}]` : ch)).join('');
      return layoutLine(replaced, library.sans);
    },
    isWinAnsi,
  };
};

const lineMakers = new WeakMap<FontLibrary, LineMaker>();

/**
 * Builds lines in Helvetica when the text allows it (nothing to embed), else in the Noto fallback
 * chain. One per font library (it holds no state of a document): made once, not on every call.
 */
export const createLineMaker = (library: FontLibrary): LineMaker => {
  let maker = lineMakers.get(library);
  if (!maker) {
    maker = makeLineMaker(library);
    lineMakers.set(library, maker);
  }
  return maker;
};

/** Lines of a standard font (Helvetica): exact widths from per-character tables, kerning included. */
export const wrapStandard = (
  text: string,
  maxWidth: number,
  size: number,
  metrics: StandardFontMetrics,
): string[] =>
  wrapText([...text], maxWidth, {
    advance: (unit, previous) => metrics.advanceOf(unit, previous, size),
  });

/** A value wrapped into lines that fit `maxWidth` at `size`, each laid out once, ready to draw. */
export interface WrappedValue {
  /** The text of each line (as given: characters no font has are still themselves here). */
  readonly texts: readonly string[];
  readonly lines: readonly DrawableLine[];
}

/**
 * Wrap user-supplied text in linear time: WinAnsi text by Helvetica's exact widths, anything else by
 * estimated glyph advances (measured once per font and character) with each line then laid out for
 * real, and refitted if shaping made it wider than estimated. Characters no font has count as the
 * `[U+XXXX]` label they are drawn as.
 */
export const wrapValue = (options: {
  text: string;
  library: FontLibrary;
  size: number;
  maxWidth: number;
}): WrappedValue => {
  const { text, library, size, maxWidth } = options;
  const make = createLineMaker(library);
  if (make.isWinAnsi(text)) {
    const texts = wrapStandard(text, maxWidth, size, standardFontMetrics(library.helvetica));
    return { texts, lines: texts.map((t) => make.value(t)) };
  }
  const laidOut = new Map<string, DrawableLine>();
  const lineOf = (line: string) => {
    let drawable = laidOut.get(line);
    if (!drawable) {
      drawable = make.value(line);
      laidOut.set(line, drawable);
    }
    return drawable;
  };
  const labelWidth = (unit: string) => {
    let width = 0;
    for (const ch of `[${codePointLabel(unit)}]`) width += estimateClusterAdvance(library.sans, ch) ?? 0.5;
    return width;
  };
  const texts = wrapText(graphemeClusters(text), maxWidth, {
    advance: (unit) => (estimateClusterAdvance(library.sans, unit) ?? labelWidth(unit)) * size,
    lineWidth: (line) => lineOf(line).width * size,
  });
  return { texts, lines: texts.map(lineOf) };
};

/**
 * Wrapped lines of text that recurs on every audit page (fixed paragraphs, the sealing certificate),
 * by text and style. Never signer data: that stays with its request.
 */
const wrapped = new Map<string, readonly string[]>();
const MAX_WRAPPED = 512;

const wrapOnce = (key: string, wrapNow: () => string[]): readonly string[] => {
  let lines = wrapped.get(key);
  if (!lines) {
    lines = wrapNow();
    if (wrapped.size >= MAX_WRAPPED) wrapped.clear();
    wrapped.set(key, lines);
  }
  return lines;
};

/**
 * Append the audit trail page: who signed, from where, when, the hash of the original, where the
 * signatures are, and how to verify the file. Values are drawn in Helvetica when WinAnsi can encode
 * them (the fast path: nothing embedded) and in embedded Noto subsets otherwise (any script).
 */
export const addAuditPage = (options: {
  doc: PDFDocument;
  facts: AuditFacts;
  library: FontLibrary;
  fonts: DocumentFonts;
}): PDFPage => {
  const { doc, facts, library, fonts } = options;
  const page = doc.addPage([...AUDIT_PAGE_SIZE]);
  const content = createPageContent(page, fonts);
  const make = createLineMaker(library);
  const helvetica = standardFontMetrics(library.helvetica);
  let y = AUDIT_PAGE_SIZE[1] - MARGIN;

  const draw = (line: DrawableLine, size: number, gapAfter = 0) => {
    y -= line.ascent * size;
    // Right-to-left values start at the right margin, as their readers expect.
    const x = line.rtl ? MARGIN + CONTENT_WIDTH - line.width * size : MARGIN;
    content.drawLine(line, { x, y, size });
    y -= -line.descent * size + gapAfter;
  };
  /** `recurring`: the same text on every audit page of this process, worth remembering how it wraps. */
  const paragraph = (text: string, size: number, gapAfter: number, recurring = false) => {
    const wrapNow = () => wrapStandard(text, CONTENT_WIDTH, size, helvetica);
    const lines = recurring ? wrapOnce(`fixed ${size} ${text}`, wrapNow) : wrapNow();
    for (const [i, line] of lines.entries())
      draw(recurring ? make.fixedOnce(line) : make.fixed(line), size, i === lines.length - 1 ? gapAfter : 2);
  };
  const field = (label: string, value: string, recurring = false) => {
    content.push('0.35 0.35 0.4 rg');
    draw(make.fixedOnce(label.toUpperCase(), true), 7.5, 2);
    content.push('0 0 0 rg');
    let text = cleanText(value) || '(none)';
    if (text.length > MAX_VALUE_CHARS) text = `${text.slice(0, MAX_VALUE_CHARS)}…`;
    const size = 10.5;
    let lines: readonly DrawableLine[];
    let texts: readonly string[];
    if (recurring) {
      texts = wrapOnce(`value ${size} ${text}`, () => [
        ...wrapValue({ text, library, size, maxWidth: CONTENT_WIDTH }).texts,
      ]);
      lines = texts.map((t) => (make.isWinAnsi(t) ? make.fixedOnce(t) : make.value(t)));
    } else {
      ({ texts, lines } = wrapValue({ text, library, size, maxWidth: CONTENT_WIDTH }));
    }
    if (lines.length > MAX_VALUE_LINES) {
      const last = make.value(`${texts[MAX_VALUE_LINES - 1] ?? ''}…`);
      lines = [...lines.slice(0, MAX_VALUE_LINES - 1), last];
    }
    for (const [i, line] of lines.entries()) draw(line, size, i === lines.length - 1 ? 9 : 2);
  };

  content.push('0 0 0 rg');
  draw(make.fixedOnce('Signature audit trail', true), 20, 6);
  content.push('0.3 0.3 0.3 rg');
  paragraph(
    'This page was added by the e-signature service when the document was signed. It is part of the signed ' +
      'file and is covered by its digital signature.',
    9,
    16,
    true,
  );
  const pages = facts.signedPages.join(', ');
  field('Audit ID', facts.auditId);
  field('Document', facts.fileName);
  field('Signer name', facts.signer.name);
  field('Signer email', facts.signer.email);
  field('IP address', facts.signer.ipAddress);
  field('User agent', facts.signer.userAgent);
  field('Signed at (UTC)', facts.signedAt);
  field('Document received at (UTC)', facts.receivedAt);
  field('SHA-256 of the original document', facts.originalHash);
  field(
    'Signatures',
    `${plural(facts.signatureCount, 'signature')} (${MODE_NAMES[facts.mode]}) on page${facts.signedPages.length === 1 ? '' : 's'} ${pages}`,
  );
  field(
    'Pages',
    `${plural(facts.originalPageCount, 'document page')} + this audit page = ${facts.originalPageCount + 1}`,
  );
  field('Signing certificate', facts.certificate.subject.replace(/\n/g, ', '), true);
  field('Certificate SHA-256 fingerprint', facts.certificate.fingerprint256, true);
  field('Signature timestamp', timestampStatement(facts.timestamped), true);

  y -= 6;
  content.push('0 0 0 rg');
  draw(make.fixedOnce('How to verify', true), 12, 6);
  content.push('0.2 0.2 0.2 rg');
  paragraph(
    `1. Compute the SHA-256 of this PDF file exactly as you received it. It must equal the fileHash recorded ` +
      `for audit ID ${facts.auditId} (returned when the document was signed, and in the document's audit log).`,
    9,
    6,
  );
  paragraph(
    '2. The file carries a digital signature (PKCS#7, SHA-256) over all of its bytes, this page included. ' +
      "Any change after signing makes that signature invalid: check it in a PDF reader's signature panel " +
      'or with a tool such as pdfsig.',
    9,
    6,
    true,
  );
  paragraph(
    `The same data is embedded in the document information and XMP metadata under audit ID ${facts.auditId}.`,
    9,
    facts.verifyUrl ? 6 : 0,
  );
  if (facts.verifyUrl) {
    paragraph(
      '3. Or check it online: open the address below (or scan the code) and drop the file on the page. ' +
        'It says whether the file is exactly the one issued, and checks every signature in it.',
      9,
      4,
      true,
    );
    content.push('0 0 0 rg');
    paragraph(facts.verifyUrl, 10, 6);
    // The code under the address; at the foot of the page if the text left it no room.
    const side = QR_SIDE;
    const bottom = Math.max(QR_MIN_BOTTOM, y - side);
    const image = qrImage(qrMatrix(facts.verifyUrl));
    const ref = doc.context.register(
      doc.context.stream(image.bytes, {
        Type: 'XObject',
        Subtype: 'Image',
        Width: image.width,
        Height: image.height,
        ColorSpace: 'DeviceGray',
        BitsPerComponent: 1,
        Interpolate: false,
      }),
    );
    page.node.setXObject(PDFName.of('VerifyQr'), ref);
    content.push(`q ${side} 0 0 ${side} ${MARGIN} ${bottom} cm /VerifyQr Do Q`);
    y = bottom;
  }
  content.commit();
  return page;
};
