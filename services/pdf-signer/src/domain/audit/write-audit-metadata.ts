import { PDFDict, PDFHexString, PDFName, PDFString } from 'pdf-lib';
import type { PDFDocument } from 'pdf-lib';
import { timestampStatement } from './add-audit-page';
import type { AuditFacts } from './add-audit-page';

/** XMP namespace of the audit fields (prefix `esign`). */
export const AUDIT_XMP_NAMESPACE = 'urn:esign:audit:1.0/';

/** `D:YYYYMMDDHHmmSSZ`, the PDF date format, from an ISO 8601 UTC timestamp. */
export const toPdfDate = (iso: string): string => {
  const d = new Date(iso);
  const p = (n: number) => String(n).padStart(2, '0');
  return `D:${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(
    d.getUTCMinutes(),
  )}${p(d.getUTCSeconds())}Z`;
};

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * A PDF text string that cannot break out of its delimiters: printable ASCII as an escaped literal
 * (readable in the file), anything else as UTF-16BE hex.
 */
export const pdfText = (value: string): PDFString | PDFHexString =>
  PRINTABLE_ASCII.test(value)
    ? PDFString.of(value.replace(/[\\()]/g, (m) => `\\${m}`))
    : PDFHexString.fromText(value);

const XML_SPECIAL = /[&<>"']/;
const XML_ENTITIES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
};

/**
 * Text for XML: the five special characters escaped, characters XML 1.0 forbids removed. Printable
 * ASCII (most values) has none of the latter, and often none of the former: the replacements, a
 * Unicode-mode one among them, run only when needed (they ran for 20 values on every signing).
 */
export const xmlText = (value: string): string => {
  const allowed = PRINTABLE_ASCII.test(value)
    ? value
    : value.replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '');
  return XML_SPECIAL.test(allowed) ? allowed.replace(/[&<>"']/g, (m) => XML_ENTITIES[m] ?? '') : allowed;
};

const auditEntries = (facts: AuditFacts): [string, string][] => [
  ['AuditId', facts.auditId],
  ['SignerName', facts.signer.name],
  ['SignerEmail', facts.signer.email],
  ['SignerIP', facts.signer.ipAddress],
  ['SignerUserAgent', facts.signer.userAgent],
  ['SignedAt', facts.signedAt],
  ['ReceivedAt', facts.receivedAt],
  ['OriginalSHA256', facts.originalHash],
  ['OriginalFileName', facts.fileName],
  ['SignatureCount', String(facts.signatureCount)],
  ['SignedPages', facts.signedPages.join(',')],
  ['SignatureTimestamp', timestampStatement(facts.timestamped)],
];

/** The XMP packet (UTF-8) with the usual Dublin Core/XMP/PDF fields and the audit fields. */
export const buildXmp = (facts: AuditFacts, subject: string, keywords: string): string =>
  buildXmpOf(auditEntries(facts), facts.signedAt, subject, keywords);

/** The XMP packet of `entries` (the `esign` namespace), modified at `modifiedAt`. */
const buildXmpOf = (
  entries: readonly (readonly [string, string])[],
  modifiedAt: string,
  subject: string,
  keywords: string,
): string => {
  const audit = entries.map(([key, value]) => `   <esign:${key}>${xmlText(value)}</esign:${key}>`).join('\n');
  return `<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:dc="http://purl.org/dc/elements/1.1/"
    xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:pdf="http://ns.adobe.com/pdf/1.3/"
    xmlns:esign="${AUDIT_XMP_NAMESPACE}">
   <dc:format>application/pdf</dc:format>
   <dc:description><rdf:Alt><rdf:li xml:lang="x-default">${xmlText(subject)}</rdf:li></rdf:Alt></dc:description>
   <pdf:Keywords>${xmlText(keywords)}</pdf:Keywords>
   <xmp:ModifyDate>${xmlText(modifiedAt)}</xmp:ModifyDate>
   <xmp:MetadataDate>${xmlText(modifiedAt)}</xmp:MetadataDate>
${audit}
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
<?xpacket end="w"?>`;
};

/**
 * Put the audit data into the document metadata: custom keys in the Info dictionary (/AuditId,
 * /SignerName, /SignerEmail, /SignerIP, /SignedAt, /OriginalSHA256, …, plus /Subject and /Keywords
 * naming the audit ID) and an XMP stream on the catalog with the same fields in the `esign`
 * namespace. An earlier XMP packet is replaced; other Info entries (Title, Author…) are kept.
 */
export const writeAuditMetadata = (doc: PDFDocument, facts: AuditFacts): void =>
  writeMetadata(doc, {
    entries: auditEntries(facts),
    subject: `Signed by ${facts.signer.name} <${facts.signer.email}> (audit ID ${facts.auditId})`,
    keywords: `e-signature; audit ID ${facts.auditId}`,
    modifiedAt: facts.signedAt,
  });

/**
 * Put `entries` into the Info dictionary (custom keys) and an XMP stream on the catalog (the `esign`
 * namespace), with /Subject, /Keywords and /ModDate; an earlier XMP packet is replaced, other Info
 * entries are kept. What `writeAuditMetadata` writes, for any set of audit fields (envelopes too).
 */
export const writeMetadata = (
  doc: PDFDocument,
  metadata: {
    entries: readonly (readonly [string, string])[];
    subject: string;
    keywords: string;
    /** ISO 8601 UTC. */
    modifiedAt: string;
  },
): void => {
  const { context } = doc;
  const { subject, keywords } = metadata;
  const existing = context.trailerInfo.Info ? context.lookup(context.trailerInfo.Info) : undefined;
  const info = existing instanceof PDFDict ? existing : context.obj({});
  if (!(existing instanceof PDFDict)) context.trailerInfo.Info = context.register(info);
  for (const [key, value] of metadata.entries) info.set(PDFName.of(key), pdfText(value));
  info.set(PDFName.of('Subject'), pdfText(subject));
  info.set(PDFName.of('Keywords'), pdfText(keywords));
  info.set(PDFName.of('ModDate'), PDFString.of(toPdfDate(metadata.modifiedAt)));

  const xmp = Buffer.from(buildXmpOf(metadata.entries, metadata.modifiedAt, subject, keywords), 'utf8');
  const stream = context.register(context.stream(xmp, { Type: 'Metadata', Subtype: 'XML' }));
  doc.catalog.set(PDFName.of('Metadata'), stream);
};
