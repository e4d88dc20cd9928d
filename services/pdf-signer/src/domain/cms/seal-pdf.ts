import { createHash } from 'node:crypto';
import type { Hash } from 'node:crypto';
import { PDFName, PDFNumber } from 'pdf-lib';
import type { PDFDict, PDFDocument, PDFPage } from 'pdf-lib';
import { buildCmsSignature } from './build-cms-signature';
import type { SigningIdentity } from './load-signing-identity';
import type { UpdateBase } from '../document/incremental-update';
import { serializePdf } from '../document/serialize-pdf';
import { pdfText, toPdfDate } from '../audit/write-audit-metadata';

/** The PDF signature format this service writes. */
export const SIGNATURE_SUBFILTER = 'adbe.pkcs7.detached';
/** PAdES baseline (ETSI EN 319 142-1): what an envelope's revisions and its seal are written as. */
export const PADES_SUBFILTER = 'ETSI.CAdES.detached';

/**
 * Bytes reserved for the CMS signature in /Contents: measured once per identity, plus room for
 * variance, plus `timestampBytes` for the RFC 3161 token when timestamps are on (measured with a
 * token of that size, so that its attribute framing is counted too).
 */
export const signaturePlaceholderBytes = async (
  identity: SigningIdentity,
  timestampBytes = 0,
): Promise<number> => {
  const cms = await buildCmsSignature({
    identity,
    digest: Buffer.alloc(32),
    signingTime: new Date(),
    ...(timestampBytes > 0 ? { timestamp: () => Promise.resolve(Buffer.alloc(timestampBytes)) } : {}),
  });
  return cms.length + 256;
};

/** The sealed file and its SHA-256 (computed while signing, without another pass over the bytes). */
export interface SealedPdf {
  readonly file: Buffer;
  readonly sha256: string;
  /** SHA-256 over `file` so far, not finished: for bytes appended after it (the DSS update). */
  readonly hash: Hash;
}

/**
 * Seal the document with a PDF digital signature over the whole file except the signature itself:
 * an invisible signature field on `page` whose dictionary is written byte-exactly, with /ByteRange
 * filled in from the final layout and a fixed-size /Contents placeholder. The covered bytes are
 * hashed in place (the common prefix once, for both the signature digest and the file hash), the
 * CMS signature goes into the placeholder, and nothing is copied.
 */
export const sealPdf = async (options: {
  doc: PDFDocument;
  page: PDFPage;
  identity: SigningIdentity;
  placeholderBytes: number;
  signedAt: string;
  signerName: string;
  reason: string;
  contactInfo: string;
  fieldName: string;
  /** The original of a document that is already signed: seal it as an incremental update. */
  base?: UpdateBase;
  /** Asks a TSA for a TimeStampToken over the CMS signature value (PAdES B-T). */
  timestamp?: (signatureValue: Buffer) => Promise<Buffer>;
  /** Room to leave after the sealed file for an update appended later (see `serializePdf`). */
  spareBytes?: number;
  /** The signature's /SubFilter (default SIGNATURE_SUBFILTER). */
  subFilter?: string;
  /** An existing, unsigned signature field (field and widget in one dictionary) to sign instead of a new one. */
  field?: PDFDict;
}): Promise<SealedPdf> => {
  const { doc, page, identity, placeholderBytes, signedAt } = options;
  const { context } = doc;
  // Registered so that references resolve; its bytes are written below instead of pdf-lib's.
  const signatureRef = context.register(context.obj({ Type: 'Sig' }));
  const acroForm = doc.catalog.getOrCreateAcroForm();
  if (options.field) {
    // A signature field the document already has (an envelope's, made at its revision 0): only its
    // value is set, so that no page and no annotation list changes.
    options.field.set(PDFName.of('V'), signatureRef);
  } else {
    const widget = context.obj({
      Type: 'Annot',
      Subtype: 'Widget',
      FT: 'Sig',
      Rect: [0, 0, 0, 0],
      // Print + Locked: an invisible field that cannot be moved.
      F: 132,
      V: signatureRef,
      P: page.ref,
    });
    widget.set(PDFName.of('T'), pdfText(options.fieldName));
    const widgetRef = context.register(widget);
    page.node.addAnnot(widgetRef);
    acroForm.addField(widgetRef);
  }
  // SignaturesExist | AppendOnly.
  acroForm.dict.set(PDFName.of('SigFlags'), PDFNumber.of(3));
  // Standard fonts and other pending embeddings are written into the context here.
  await doc.flush();

  const prefix = [
    '<<',
    '/Type /Sig',
    '/Filter /Adobe.PPKLite',
    `/SubFilter /${options.subFilter ?? SIGNATURE_SUBFILTER}`,
    `/Name ${pdfText(options.signerName).toString()}`,
    `/Reason ${pdfText(options.reason).toString()}`,
    `/ContactInfo ${pdfText(options.contactInfo).toString()}`,
    `/M ${pdfText(toPdfDate(signedAt)).toString()}`,
    '/ByteRange ',
  ].join('\n');
  // "[0 a b c]" with room for three 10-digit numbers.
  const rangeWidth = 2 + 3 * 11 + 1;
  const contentsKey = '\n/Contents ';
  const placeholder = `<${'0'.repeat(placeholderBytes * 2)}>`;
  const prefixBytes = Buffer.byteLength(prefix, 'latin1');
  const contentsAt = prefixBytes + rangeWidth + contentsKey.length;
  const size = contentsAt + placeholder.length + '\n>>'.length;

  const { file, verbatimOffset } = serializePdf(
    context,
    {
      ref: signatureRef,
      size,
      render: ({ offset, fileSize }) => {
        const start = offset + contentsAt;
        const end = start + placeholder.length;
        const ranges = `[0 ${start} ${end} ${fileSize - end}`.padEnd(rangeWidth - 1, ' ');
        return Buffer.from(`${prefix}${ranges}]${contentsKey}${placeholder}\n>>`, 'latin1');
      },
    },
    options.base,
    options.spareBytes,
  );

  const contentsStart = verbatimOffset + contentsAt;
  const contentsEnd = contentsStart + placeholder.length;
  const covered = createHash('sha256').update(file.subarray(0, contentsStart));
  const digest = covered.copy().update(file.subarray(contentsEnd)).digest();
  const cms = await buildCmsSignature({
    identity,
    digest,
    signingTime: new Date(signedAt),
    timestamp: options.timestamp,
  });
  if (cms.length > placeholderBytes) throw new Error('CMS signature does not fit its placeholder');
  file.write(cms.toString('hex'), contentsStart + 1, 'latin1');
  const whole = covered.update(file.subarray(contentsStart));
  const sha256 = whole.copy().digest('hex');
  return { file, sha256: `sha256:${sha256}`, hash: whole };
};
