import { z } from 'zod';
import { defineRequest } from './define';
import { ZAuditId, ZFileHash, ZIsoTimestamp } from './common';

/** A certificate as a verification report shows it. */
export const ZCertificateFacts = z.object({
  subject: z.string(),
  issuer: z.string(),
  /** Hex, upper case, as openssl prints it. */
  serialNumber: z.string(),
  validFrom: ZIsoTimestamp,
  validTo: ZIsoTimestamp,
  /** SHA-256 fingerprint, hex with colons. */
  fingerprint256: z.string(),
  /** Issued by itself (nobody vouches for it but itself). */
  selfSigned: z.boolean(),
});
export type TCertificateFacts = z.infer<typeof ZCertificateFacts>;

/** The RFC 3161 timestamp embedded in a signature (or a document timestamp's own token). */
export const ZTimestampFacts = z.object({
  /** The TSA's time (genTime). */
  time: ZIsoTimestamp.nullable(),
  /** Subject of the TSA's certificate. */
  authority: z.string().nullable(),
  /** The token's own CMS signature verifies with the TSA certificate it carries. */
  signatureValid: z.boolean(),
  /** Its message imprint is the hash of what it timestamps (the signature value, or the covered bytes). */
  imprintMatches: z.boolean(),
  problems: z.array(z.string()),
});
export type TTimestampFacts = z.infer<typeof ZTimestampFacts>;

/** One signature of a PDF, as checked by the signer's verifier. */
export const ZSignatureReport = z.object({
  /** 1-based, in file order. */
  index: z.number().int().positive(),
  /** `signature` (adbe.pkcs7.detached, ETSI.CAdES.detached…) or `document-timestamp` (ETSI.RFC3161). */
  type: z.enum(['signature', 'document-timestamp']),
  subFilter: z.string().nullable(),
  /** The signer as the certificate names it (its CN, else the whole subject). */
  signer: z.string().nullable(),
  /** signingTime attribute, else the dictionary's /M (the signer's own claim). */
  signingTime: ZIsoTimestamp.nullable(),
  certificate: ZCertificateFacts.nullable(),
  /** The certificate is this service's sealing certificate. */
  sealedByThisService: z.boolean(),
  /** The CMS signature verifies over the signed attributes, and their messageDigest is the ByteRange's digest. */
  cryptographicallyValid: z.boolean(),
  /** messageDigest equals the digest of the bytes /ByteRange names. */
  digestMatches: z.boolean(),
  /** The signature value verifies with the certificate's public key. */
  signatureVerifies: z.boolean(),
  /** The ByteRange runs to the end of the file: nothing was added after it. */
  coversWholeFile: z.boolean(),
  /** Bytes [0, end of ByteRange): the revision of the file this signature signed. */
  signedBytes: z.number().int().nonnegative(),
  /** SHA-256 of the signed revision (`sha256:<hex>`), null when the file is shorter than its ByteRange. */
  revisionHash: ZFileHash.nullable(),
  /** Incremental updates appended after this signature's revision. */
  updatesAfter: z.number().int().nonnegative(),
  /** What those updates change, where it can be told (object kinds). */
  changesAfter: z.array(z.string()),
  timestamp: ZTimestampFacts.nullable(),
  /** Why it is not valid, in plain words (empty when it is). */
  problems: z.array(z.string()),
});
export type TSignatureReport = z.infer<typeof ZSignatureReport>;

export const ZPdfVerifyReply = z.object({
  size: z.number().int().nonnegative(),
  /** The file starts like a PDF and ends with %%EOF. */
  looksLikePdf: z.boolean(),
  signatures: z.array(ZSignatureReport),
  /**
   * Every revision of the file (each ends with %%EOF and its line end), the last 64 at most: an
   * earlier revision may be a file we issued, to which someone appended an update.
   */
  revisions: z.array(z.object({ end: z.number().int().nonnegative(), sha256: ZFileHash })),
  /** Problems with the file as a whole (truncated, no signature…). */
  problems: z.array(z.string()),
});
export type TPdfVerifyReply = z.infer<typeof ZPdfVerifyReply>;

/**
 * Check every signature of an uploaded PDF (claim check: the object key of an upload, which the
 * signer deletes afterwards). Runs on the signer's verification worker, never on the bus thread.
 */
export const PdfVerify = defineRequest(
  'pdf.verify',
  z.object({ uploadKey: z.string().min(1) }),
  ZPdfVerifyReply,
);

/** What anyone may learn about a document we issued: no account, personal data masked. */
export const ZIssuedDocument = z.object({
  auditId: ZAuditId,
  signedAt: ZIsoTimestamp,
  /** SHA-256 of the signed PDF exactly as we issued it. */
  fileHash: ZFileHash,
  /** Masked: first letter of each word, e.g. `A*** L***`. */
  signerName: z.string(),
  /** Masked: `a***@example.com`. */
  signerEmail: z.string(),
  pageCount: z.number().int(),
});
export type TIssuedDocument = z.infer<typeof ZIssuedDocument>;

/**
 * Public look-up of issued documents, by audit ID or by the SHA-256 of files: the records whose
 * `fileHash` is one of `fileHashes` (at most one each), or the one record of `auditId`
 * (`not_found` when there is none). Personal data comes masked.
 */
export const DocumentFindIssued = defineRequest(
  'document.find-issued',
  z.union([z.object({ auditId: ZAuditId }), z.object({ fileHashes: z.array(ZFileHash).min(1).max(64) })]),
  z.object({ documents: z.array(ZIssuedDocument) }),
);

/** `a***@example.com`: the first character of the local part, the domain whole. */
export const maskEmail = (email: string): string => {
  const at = email.lastIndexOf('@');
  if (at < 1) return '***';
  return `${[...email.slice(0, at)][0] ?? ''}***${email.slice(at)}`;
};

/** `A*** L***`: the first character of each word. */
export const maskName = (name: string): string =>
  name
    .trim()
    .split(/\s+/)
    .filter((w) => w.length > 0)
    .map((w) => `${[...w][0] ?? ''}***`)
    .join(' ') || '***';
