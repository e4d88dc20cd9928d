import { endpoint, type Endpoint } from '@esign/bus';
import { DocumentFindIssued, maskEmail, maskName, ServiceError } from '@esign/contracts';
import type { DocumentRepository } from '../db/document-repository';

/**
 * `document.find-issued`: public verification's look-up, by audit ID (`not_found` when unknown) or by
 * the SHA-256 of files (the records found, maybe none). Names and emails leave masked.
 */
export const findIssuedHandler = (deps: { documents: DocumentRepository }): Endpoint =>
  endpoint(DocumentFindIssued, async (request) => {
    const rows = await deps.documents.findIssued(
      'auditId' in request ? { auditId: request.auditId } : { fileHashes: [...new Set(request.fileHashes)] },
    );
    if ('auditId' in request && rows.length === 0) {
      throw new ServiceError('not_found', `No document with audit ID ${request.auditId}`);
    }
    return {
      documents: rows.map((row) => ({
        auditId: row.auditId,
        signedAt: row.signedAt.toISOString(),
        fileHash: row.fileHash,
        signerName: maskName(row.signerName),
        signerEmail: maskEmail(row.signerEmail),
        pageCount: row.pageCount,
      })),
    };
  });
