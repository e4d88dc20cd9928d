import type { TIssuedDocument, TPdfVerifyReply } from '@esign/contracts';
import type { z } from 'zod';
import type { ZVerificationReport } from '../endpoints/verify.schemas';
import type { VerifyingPorts } from './verifying-ports';

/** What a public verification answers (the public schema `VerificationReport`). */
export type TVerificationReport = z.infer<typeof ZVerificationReport>;
type TVerdict = TVerificationReport['verdict'];
type TIssued = TVerificationReport['issued'];

/** A PDF to verify: an upload already in object storage, hashed while it streamed in. */
export interface VerifyDocumentInput {
  readonly upload: { readonly key: string; readonly fileName: string; readonly sha256: string };
}

/** Only long-term validation data or a document timestamp after the last signature changes nothing signed. */
const BENIGN_CHANGES: readonly string[] = ['long-term validation data (DSS)', 'a document timestamp'];

const verdictOf = (report: TPdfVerifyReply): TVerdict => {
  const { signatures } = report;
  if (signatures.length === 0) return report.looksLikePdf ? 'unsigned' : 'invalid';
  if (signatures.some((s) => !s.cryptographicallyValid)) return 'invalid';
  if (!report.looksLikePdf) return 'invalid';
  const last = signatures.at(-1);
  const benign = (changes: readonly string[]) => changes.every((c) => BENIGN_CHANGES.includes(c));
  return last && (last.coversWholeFile || benign(last.changesAfter)) ? 'valid' : 'modified';
};

const summaryOf = (
  verdict: TVerdict,
  issued: TIssued,
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

/**
 * The public verification workflow: the signer checks every signature of the upload (`pdf.verify`,
 * which deletes the upload), then the file and each earlier revision of it are looked up among the
 * documents we issued by their SHA-256 (a file we issued, with updates appended by someone else, is
 * found by its revision). The verdict, a one-sentence summary and, per signature, the first document
 * we issued that holds it.
 */
export const verifyDocument = async (
  ports: VerifyingPorts,
  input: VerifyDocumentInput,
): Promise<TVerificationReport> => {
  const fileHash = `sha256:${input.upload.sha256}`;
  const report = await ports.verifyPdf(input.upload.key);
  const hashes = [...new Set([fileHash, ...report.revisions.map((r) => r.sha256)])].slice(-64);
  const documents = await ports.findIssuedByHashes(hashes);
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
  return {
    verdict,
    summary: summaryOf(
      verdict,
      issued,
      report.signatures.length,
      !report.looksLikePdf && report.signatures.every((s) => s.cryptographicallyValid),
    ),
    file: { name: input.upload.fileName, size: report.size, sha256: fileHash },
    issued,
    signatures: report.signatures.map((s) => ({
      ...s,
      issuedAuditId: issuedWith(s.signedBytes)?.auditId ?? null,
    })),
    problems: report.problems,
  };
};
