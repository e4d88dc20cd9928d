import { z } from 'zod';
import { defineRequest } from './define';
import { ZAuditEvent, ZAuditId, ZFileHash, ZHexColor, ZIsoTimestamp, ZPosition } from './common';

/** Document kinds the signer accepts, as sniffed from the bytes. */
export const ZDocumentKind = z.enum(['pdf', 'png', 'jpeg']);
export type TDocumentKind = z.infer<typeof ZDocumentKind>;

/** Largest signature image accepted inline in a message (base64 of the image bytes). */
export const MAX_SIGNATURE_IMAGE_BYTES = 512 * 1024;

/** The signature to stamp. Images travel inline (small, capped); documents never do. */
export const ZSignature = z.discriminatedUnion('mode', [
  z.object({
    mode: z.enum(['draw', 'upload']),
    /** PNG or JPEG bytes, base64. */
    imageBase64: z.string().max(Math.ceil(MAX_SIGNATURE_IMAGE_BYTES / 3) * 4),
  }),
  z.object({ mode: z.literal('type'), typedName: z.string().min(1).max(200), color: ZHexColor }),
]);
export type TSignature = z.infer<typeof ZSignature>;

export const ZSigner = z.object({
  name: z.string().min(1),
  email: z.string().min(1),
  ipAddress: z.string(),
  userAgent: z.string(),
});
export type TSigner = z.infer<typeof ZSigner>;

export const ZSignPdfRequest = z.object({
  accountId: z.uuid(),
  /** Object key of the uploaded original (claim check). */
  uploadKey: z.string().min(1),
  fileName: z.string().min(1),
  kind: ZDocumentKind,
  signature: ZSignature,
  positions: z.array(ZPosition).min(1).max(50),
  signer: ZSigner,
  /** When the upload was received, for the audit log. */
  receivedAt: ZIsoTimestamp,
  /**
   * The audit ID to give the signed document, when one was reserved before (a signing request's);
   * otherwise the signer makes a new one.
   */
  auditId: ZAuditId.optional(),
});
export type TSignPdfRequest = z.infer<typeof ZSignPdfRequest>;

export const ZSignPdfReply = z.object({
  auditId: ZAuditId,
  signedAt: ZIsoTimestamp,
  /** Object key of the signed PDF. */
  signedKey: z.string(),
  /** File name for Content-Disposition, always ending in .pdf. */
  signedFileName: z.string(),
  /** SHA-256 of exactly the signed bytes. */
  fileHash: ZFileHash,
  /** SHA-256 of the original upload. */
  originalHash: ZFileHash,
  size: z.number().int().positive(),
  pageCount: z.number().int().positive(),
  /** What the signer did, in order, for the audit log. */
  events: z.array(ZAuditEvent),
  /** The RFC 3161 timestamp embedded in the signature: the TSA's time and name (absent when off). */
  timestamp: z.object({ time: ZIsoTimestamp, authority: z.string() }).optional(),
});
export type TSignPdfReply = z.infer<typeof ZSignPdfReply>;

/** Stamp, add the audit trail, seal; store the signed PDF; never returns file bytes. */
export const PdfSign = defineRequest('pdf.sign', ZSignPdfRequest, ZSignPdfReply);

/** `<base name>-signed.pdf`: the original name without folders or extension. */
export const signedFileNameFor = (fileName: string): string => {
  const base = (fileName.split(/[/\\]/).pop() ?? '')
    .replace(/[\p{Cc}\p{Cf}]/gu, '')
    .replace(/\.[^.]*$/, '')
    .trim();
  return `${base || 'document'}-signed.pdf`;
};

/**
 * Read an upload (under `uploads/`, never deleted here) as a PDF and say how many pages it has, so
 * that positions can be checked against them before anything else happens (send for signing).
 * `invalid_argument` (field `file`) when it is not a PDF the signer can sign.
 */
export const PdfInspect = defineRequest(
  'pdf.inspect',
  z.object({ uploadKey: z.string().min(1) }),
  z.object({
    pageCount: z.number().int().positive(),
    /**
     * Each page's size as a person sees it (after /Rotate, within the crop box), in points: what the
     * gateway checks field boxes against (envelopes). Absent from an older signer.
     */
    pageSizes: z.array(z.object({ width: z.number().positive(), height: z.number().positive() })).optional(),
    /** `sha256:` of the upload's bytes (absent from an older signer). */
    fileHash: ZFileHash.optional(),
  }),
);
