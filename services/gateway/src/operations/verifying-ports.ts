import type { Bus } from '@esign/bus';
import { DocumentFindIssued, PdfVerify, type TIssuedDocument, type TPdfVerifyReply } from '@esign/contracts';

/**
 * What verification needs from the world: the signer's verification worker and document-store's
 * public look-up of the documents this service issued. Production wires them to NATS
 * (`createVerifyingPorts`); tests pass typed fakes (`fakeVerifyingPorts`).
 */
export interface VerifyingPorts {
  /**
   * `pdf.verify`: every signature of an upload checked. The worker reads the upload by its key and
   * deletes it: no bytes on the bus.
   */
  verifyPdf(uploadKey: string): Promise<TPdfVerifyReply>;
  /** `document.find-issued`: the documents we issued whose SHA-256 is one of these (at most 64). */
  findIssuedByHashes(fileHashes: readonly string[]): Promise<readonly TIssuedDocument[]>;
  /** `document.find-issued`: the document we issued with this audit ID (`not_found` when none). */
  findIssuedByAuditId(auditId: string): Promise<TIssuedDocument | undefined>;
}

/** The verifying ports on the bus. Built once at start-up. */
export const createVerifyingPorts = (deps: { bus: Bus }): VerifyingPorts => ({
  verifyPdf: (uploadKey) => deps.bus.request(PdfVerify, { uploadKey }),
  findIssuedByHashes: async (fileHashes) =>
    (await deps.bus.request(DocumentFindIssued, { fileHashes: [...fileHashes] })).documents,
  findIssuedByAuditId: async (auditId) =>
    (await deps.bus.request(DocumentFindIssued, { auditId })).documents[0],
});
