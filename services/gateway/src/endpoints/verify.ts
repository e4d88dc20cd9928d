import {
  DocumentFindIssued,
  PdfVerify,
  ServiceError,
  ZAuditId,
  type TIssuedDocument,
  type TPdfVerifyReply,
} from '@esign/contracts';
import { z } from 'zod';
import { defineOperation } from '../api/operation';
import { ZIssuedDocumentCheck, ZVerificationReport } from './verify.schemas';

type TVerificationReport = z.infer<typeof ZVerificationReport>;

const verdictOf = (report: TPdfVerifyReply): TVerificationReport['verdict'] => {
  const { signatures } = report;
  if (signatures.length === 0) return report.looksLikePdf ? 'unsigned' : 'invalid';
  if (signatures.some((s) => !s.cryptographicallyValid)) return 'invalid';
  if (!report.looksLikePdf) return 'invalid';
  const last = signatures.at(-1);
  // Only long-term validation data or a document timestamp after the last signature changes nothing signed.
  const benign = (changes: readonly string[]) =>
    changes.every((c) => c === 'long-term validation data (DSS)' || c === 'a document timestamp');
  return last && (last.coversWholeFile || benign(last.changesAfter)) ? 'valid' : 'modified';
};

const summaryOf = (
  verdict: TVerificationReport['verdict'],
  issued: TVerificationReport['issued'],
  count: number,
  /** Every signature verifies, but the file as a whole is not a complete PDF. */
  damaged: boolean,
): string => {
  const sigs = count === 1 ? 'signature' : `${count} signatures`;
  const verify = count === 1 ? 'verifies' : 'verify';
  const ours = issued.document
    ? issued.exactMatch
      ? ` It is exactly the document we issued as ${issued.document.auditId}.`
      : ` It was changed after we issued it as ${issued.document.auditId}; this copy is not the one we issued.`
    : ' It is not a document we issued (no record of this file).';
  switch (verdict) {
    case 'valid':
      return `The ${sigs} ${verify} and nothing was changed after the last one.${ours}`;
    case 'modified':
      return `The ${sigs} ${verify}, but the file was changed after the last one was made.${ours}`;
    case 'invalid':
      return damaged
        ? `The file is damaged: it was truncated, or bytes were added that are not a PDF update.${ours}`
        : `At least one signature does not verify: the file was changed, damaged or put together from other files.${ours}`;
    case 'unsigned':
      return `The file has no digital signature.${ours}`;
  }
};

export const verifyDocumentOperation = defineOperation({
  id: 'verifyDocument',
  method: 'post',
  path: '/api/v1/verify',
  tag: 'Verification',
  summary: 'Verify a signed PDF (public)',
  description:
    "Anyone may check a PDF, without a key: every digital signature in it (signer, signing time, certificate, whether the CMS signature and the digest of the signed bytes verify, whether it covers the whole file or what was appended after it, its RFC 3161 timestamp) and whether the file is one this service issued (its SHA-256 in our records, with the audit ID and signing time; the signer masked). Trust in a certificate is the verifier's call: the report says which certificate signed and whether it is this service's. Rate-limited per client IP.",
  auth: 'none',
  rateLimit: { bucket: 'verify', perMinute: (config) => config.VERIFY_RATE_LIMIT_PER_MINUTE },
  request: {
    multipart: {
      fields: z.object({}),
      file: {
        name: 'file',
        description: 'The PDF to verify',
        accept: ['pdf'],
        maxBytes: (config) => config.SIGN_MAX_FILE_BYTES,
        // The look-up in our records is by the file's SHA-256, computed while it streams in.
        hash: () => true,
      },
    },
    example: {},
  },
  responses: { 200: { description: 'The verification report', json: ZVerificationReport } },
  errors: ['invalid_argument', 'too_large', 'unavailable', 'internal'],
  async handle({ file }, deps) {
    if (!file?.sha256) throw new Error('verifyDocument needs a hashed file');
    const fileHash = `sha256:${file.sha256}`;
    // The signer's verification worker reads the upload by its key (and deletes it): no bytes on the bus.
    const report = await deps.bus.request(PdfVerify, { uploadKey: file.key });
    // The file, and each earlier revision of it (a file we issued, with updates appended by someone else).
    const hashes = [...new Set([fileHash, ...report.revisions.map((r) => r.sha256)])].slice(-64);
    const { documents } = await deps.bus.request(DocumentFindIssued, { fileHashes: hashes });
    const byHash = new Map(documents.map((d) => [d.fileHash, d]));
    const exact = byHash.get(fileHash);
    const ours = report.revisions.flatMap((r) => {
      const document = byHash.get(r.sha256);
      return document ? [{ end: r.end, document }] : [];
    });
    // Else the latest revision of it that we issued: the file was changed after we issued it.
    const earlier = ours.at(-1)?.document;
    const issued = { exactMatch: exact !== undefined, document: exact ?? earlier ?? null };
    /** The first file we issued that holds this signature (its revision, or the one with our DSS after it). */
    const issuedWith = (signedBytes: number): TIssuedDocument | undefined =>
      ours.find((r) => r.end >= signedBytes)?.document;
    const verdict = verdictOf(report);
    const json: TVerificationReport = {
      verdict,
      summary: summaryOf(
        verdict,
        issued,
        report.signatures.length,
        !report.looksLikePdf && report.signatures.every((s) => s.cryptographicallyValid),
      ),
      file: { name: file.fileName, size: report.size, sha256: fileHash },
      issued,
      signatures: report.signatures.map((s) => ({
        ...s,
        issuedAuditId: issuedWith(s.signedBytes)?.auditId ?? null,
      })),
      problems: report.problems,
    };
    return { status: 200, json };
  },
});

const ZHashQuery = z.object({
  hash: z
    .string()
    .regex(/^sha256:[0-9a-fA-F]{64}$/, 'hash must be sha256: followed by 64 hex digits')
    .optional()
    .meta({ description: 'sha256:<hex> of a copy: whether it is exactly the document issued' }),
});

export const checkIssuedDocumentOperation = defineOperation({
  id: 'getIssuedDocument',
  method: 'get',
  path: '/api/v1/verify/{auditId}',
  tag: 'Verification',
  summary: 'Check an audit ID (public)',
  description:
    'Whether this service issued a document with this audit ID, when it was signed and the SHA-256 of the file it issued; with ?hash=sha256:<hex>, whether a copy someone holds is exactly that file. No key needed; the signer is masked. Unknown audit ID: 404.',
  auth: 'none',
  request: {
    params: z.object({
      auditId: z
        .string()
        .meta({ description: 'The audit ID printed on the audit page', example: 'ESG-7KQ2-M4XP-9D3F' }),
    }),
    query: ZHashQuery,
  },
  responses: { 200: { description: 'The issued document', json: ZIssuedDocumentCheck } },
  errors: ['invalid_argument', 'not_found', 'unavailable', 'internal'],
  async handle({ params, query }, deps) {
    const { auditId } = params;
    if (!ZAuditId.safeParse(auditId).success) {
      throw new ServiceError('not_found', `No document with audit ID ${auditId.slice(0, 40)}`);
    }
    const { documents } = await deps.bus.request(DocumentFindIssued, { auditId });
    const [document] = documents;
    if (!document) throw new ServiceError('not_found', `No document with audit ID ${auditId}`);
    return {
      status: 200,
      json: {
        ...document,
        exists: true as const,
        hashMatches: query.hash === undefined ? null : query.hash.toLowerCase() === document.fileHash,
      },
    };
  },
});
