import type { PDFDocument, PDFPage } from 'pdf-lib';
import type { TCertificateRecipient } from '@esign/contracts';
import { AUDIT_PAGE_SIZE, createLineMaker, wrapStandard, wrapValue } from '../audit/add-audit-page';
import type { FontLibrary } from '../layout/font-library';
import { cleanText } from '../layout/layout-text';
import { createPageContent } from '../layout/page-content';
import type { DocumentFonts, DrawableLine, PageContent } from '../layout/page-content';
import { standardFontMetrics } from '../layout/standard-font-metrics';

/** What the certificate of completion states. */
export interface CompletionFacts {
  readonly envelopeId: string;
  readonly auditId: string;
  readonly fileName: string;
  readonly subject: string;
  readonly senderEmail: string;
  /** ISO 8601 UTC. */
  readonly createdAt: string;
  readonly completedAt: string;
  /** `sha256:<hex>` of the original upload. */
  readonly originalHash: string;
  readonly recipients: readonly TCertificateRecipient[];
  readonly certificate: { readonly subject: string; readonly fingerprint256: string };
}

const MARGIN = 56;
const CONTENT_WIDTH = AUDIT_PAGE_SIZE[0] - 2 * MARGIN;
const MAX_VALUE_CHARS = 600;
const MAX_VALUE_LINES = 6;

export const ROLE_NAMES = { signer: 'Signer', approver: 'Approver', cc: 'Receives a copy' } as const;

/** An ISO timestamp as UTC, to the second: `2026-11-26 16:45:14 UTC`. */
export const utc = (iso: string): string => {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
};

/**
 * Append the certificate of completion, on as many A4 pages as it takes: the envelope (IDs, file,
 * subject, sender, times, the original's hash, the sealing certificate), then every recipient (name,
 * email, role, group, status) with each of their events (time in UTC, IP address, user agent),
 * wrapped, in the audit page's type (Helvetica for WinAnsi text, embedded Noto otherwise). Returns
 * its pages, the first one first.
 */
export const addCertificatePages = (options: {
  doc: PDFDocument;
  facts: CompletionFacts;
  library: FontLibrary;
  fonts: DocumentFonts;
}): PDFPage[] => {
  const { doc, facts, library, fonts } = options;
  const make = createLineMaker(library);
  const helvetica = standardFontMetrics(library.helvetica);
  const pages: PDFPage[] = [];
  let page: PDFPage | undefined;
  let content: PageContent | undefined;
  let y = 0;
  /** The fill colour in use, set again on each new page. */
  let color = '0 0 0 rg';

  const newPage = () => {
    content?.commit();
    page = doc.addPage([...AUDIT_PAGE_SIZE]);
    pages.push(page);
    content = createPageContent(page, fonts);
    y = AUDIT_PAGE_SIZE[1] - MARGIN;
    if (pages.length > 1) {
      content.push('0.35 0.35 0.4 rg');
      draw(make.fixed(`Certificate of completion (continued), envelope ${facts.envelopeId}`, true), 8, 10);
    }
    content.push(color);
  };
  const ink = (ops: string) => {
    color = ops;
    content?.push(ops);
  };
  /** Draw one line at the left margin (indented by `indent`), on a new page when it does not fit. */
  function draw(line: DrawableLine, size: number, gapAfter = 0, indent = 0) {
    const height = (line.ascent - line.descent) * size;
    if (!content || y - height < MARGIN) newPage();
    y -= line.ascent * size;
    const width = CONTENT_WIDTH - indent;
    const x = line.rtl ? MARGIN + indent + width - line.width * size : MARGIN + indent;
    content?.drawLine(line, { x, y, size });
    y -= -line.descent * size + gapAfter;
  }
  const paragraph = (text: string, size: number, gapAfter: number) => {
    const lines = wrapStandard(text, CONTENT_WIDTH, size, helvetica);
    for (const [i, line] of lines.entries())
      draw(make.fixed(line), size, i === lines.length - 1 ? gapAfter : 2);
  };
  /** User-supplied text, wrapped, at most MAX_VALUE_LINES lines. */
  const value = (raw: string, size: number, gapAfter: number, indent = 0) => {
    let text = cleanText(raw) || '(none)';
    if (text.length > MAX_VALUE_CHARS) text = `${text.slice(0, MAX_VALUE_CHARS)}…`;
    const wrapped = wrapValue({ text, library, size, maxWidth: CONTENT_WIDTH - indent });
    let lines: readonly DrawableLine[] = wrapped.lines;
    if (lines.length > MAX_VALUE_LINES) {
      lines = [
        ...lines.slice(0, MAX_VALUE_LINES - 1),
        make.value(`${wrapped.texts[MAX_VALUE_LINES - 1] ?? ''}…`),
      ];
    }
    for (const [i, line] of lines.entries()) draw(line, size, i === lines.length - 1 ? gapAfter : 2, indent);
  };
  const field = (label: string, text: string) => {
    ink('0.35 0.35 0.4 rg');
    draw(make.fixed(label.toUpperCase(), true), 7.5, 2);
    ink('0 0 0 rg');
    value(text, 10.5, 8);
  };

  newPage();
  ink('0 0 0 rg');
  draw(make.fixed('Certificate of completion', true), 20, 6);
  ink('0.3 0.3 0.3 rg');
  paragraph(
    'These pages were added by the e-signature service when every signer and approver had acted. Each ' +
      "signer's revision carries a digital signature of its own; the service's seal over the whole file, " +
      'these pages included, follows them.',
    9,
    14,
  );
  field('Envelope ID', facts.envelopeId);
  field('Audit ID', facts.auditId);
  field('Document', facts.fileName);
  field('Subject', facts.subject);
  field('Sent by', facts.senderEmail);
  field('Created (UTC)', utc(facts.createdAt));
  field('Completed (UTC)', utc(facts.completedAt));
  field('SHA-256 of the original document', facts.originalHash);
  field('Sealing certificate', facts.certificate.subject.replace(/\n/g, ', '));
  field('Certificate SHA-256 fingerprint', facts.certificate.fingerprint256);

  y -= 6;
  ink('0 0 0 rg');
  draw(make.fixed(`Recipients (${facts.recipients.length})`, true), 13, 8);
  const recipients = [...facts.recipients].sort((a, b) => a.order - b.order);
  for (const recipient of recipients) {
    ink('0 0 0 rg');
    value(`${recipient.name} <${recipient.email}>`, 11, 2);
    ink('0.3 0.3 0.3 rg');
    draw(
      make.fixed(`${ROLE_NAMES[recipient.role]}, group ${recipient.order}, status: ${recipient.status}`),
      9,
      4,
    );
    if (recipient.events.length === 0) draw(make.fixed('No events.'), 8.5, 4, 12);
    for (const event of recipient.events) {
      ink('0 0 0 rg');
      draw(make.fixed(`${utc(event.at)}  ${event.event}`, true), 8.5, 1, 12);
      ink('0.3 0.3 0.3 rg');
      // E.g. who replaced whom: names are the sender's text, so drawn as values (any script).
      if (event.note) value(event.note, 8, 1, 12);
      value(`IP address: ${event.ipAddress ?? '(none)'}`, 8, 1, 12);
      value(`User agent: ${event.userAgent ?? '(none)'}`, 8, 4, 12);
    }
    y -= 8;
  }
  content?.commit();
  return pages;
};

/** What revision 0's certificate header states (nothing that is known only at completion). */
export interface CertificateHeader {
  readonly envelopeId: string;
  readonly auditId: string;
  readonly fileName: string;
  readonly subject: string;
  readonly senderEmail: string;
  readonly createdAt: string;
  readonly originalHash: string;
}

/**
 * The first certificate page's body holds about 4 recipients at the body's largest type, each further
 * page about 6 (the body shrinks its type to fit, down to 4 pt, before anything is cut).
 */
const RECIPIENTS_ON_FIRST_PAGE = 4;
const RECIPIENTS_PER_PAGE = 6;

/**
 * Append the certificate of completion's pages at revision 0: on the first, the static header (title,
 * envelope ID, audit ID, document, subject, sender, created time, the original's hash) drawn as page
 * content, then "Recipients and events" and the body's area; one more page per 6 recipients past 4, each a
 * continuation line and a body area. The body areas become read-only text fields filled at completion.
 */
export const addCertificateTemplate = (options: {
  doc: PDFDocument;
  header: CertificateHeader;
  recipients: number;
  library: FontLibrary;
  fonts: DocumentFonts;
}): { page: PDFPage; rect: [number, number, number, number] }[] => {
  const { doc, header, library, fonts } = options;
  const make = createLineMaker(library);
  const helvetica = standardFontMetrics(library.helvetica);
  const bodies: { page: PDFPage; rect: [number, number, number, number] }[] = [];
  const extra = Math.ceil(Math.max(0, options.recipients - RECIPIENTS_ON_FIRST_PAGE) / RECIPIENTS_PER_PAGE);
  for (let k = 0; k <= extra; k++) {
    const page = doc.addPage([...AUDIT_PAGE_SIZE]);
    const content = createPageContent(page, fonts);
    let y = AUDIT_PAGE_SIZE[1] - MARGIN;
    const draw = (line: DrawableLine, size: number, gapAfter = 0) => {
      y -= line.ascent * size;
      content.drawLine(line, { x: MARGIN, y, size });
      y -= -line.descent * size + gapAfter;
    };
    const value = (raw: string, size: number, gapAfter: number) => {
      let text = cleanText(raw) || '(none)';
      if (text.length > MAX_VALUE_CHARS) text = `${text.slice(0, MAX_VALUE_CHARS)}…`;
      const wrapped = wrapValue({ text, library, size, maxWidth: CONTENT_WIDTH });
      const lines = wrapped.lines.slice(0, 3);
      for (const [i, line] of lines.entries()) draw(line, size, i === lines.length - 1 ? gapAfter : 2);
    };
    if (k === 0) {
      content.push('0 0 0 rg');
      draw(make.fixed('Certificate of completion', true), 20, 6);
      content.push('0.3 0.3 0.3 rg');
      const intro =
        'These pages were added by the e-signature service when the envelope was sent; their recipients ' +
        "and events are filled in when every signer and approver has acted. Each signer's revision " +
        "carries a digital signature of its own; the service's seal over the whole file follows them.";
      for (const line of wrapStandard(intro, CONTENT_WIDTH, 9, helvetica)) draw(make.fixed(line), 9, 2);
      y -= 10;
      const facts: [string, string][] = [
        ['Envelope ID', header.envelopeId],
        ['Audit ID', header.auditId],
        ['Document', header.fileName],
        ['Subject', header.subject],
        ['Sent by', header.senderEmail],
        ['Created (UTC)', utc(header.createdAt)],
        ['SHA-256 of the original document', header.originalHash],
      ];
      for (const [label, text] of facts) {
        content.push('0.35 0.35 0.4 rg');
        draw(make.fixed(label.toUpperCase(), true), 7.5, 2);
        content.push('0 0 0 rg');
        value(text, 10.5, 6);
      }
      y -= 6;
      draw(make.fixed('Recipients and events', true), 13, 6);
    } else {
      content.push('0.35 0.35 0.4 rg');
      draw(make.fixed(`Certificate of completion (continued), envelope ${header.envelopeId}`, true), 8, 10);
    }
    content.commit();
    bodies.push({ page, rect: [MARGIN, MARGIN, MARGIN + CONTENT_WIDTH, Math.floor(y)] });
  }
  return bodies;
};
