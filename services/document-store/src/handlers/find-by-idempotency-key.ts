import { endpoint, type Endpoint } from '@esign/bus';
import { DocumentFindByIdempotencyKey, ServiceError } from '@esign/contracts';
import type { DocumentRepository } from '../db/document-repository';

/** `document.find-by-idempotency-key`: what an account's Idempotency-Key produced, for a retry. */
export const findByIdempotencyKeyHandler = (deps: { documents: DocumentRepository }): Endpoint =>
  endpoint(DocumentFindByIdempotencyKey, async ({ accountId, key }) => {
    const document = await deps.documents.findByIdempotencyKey({ accountId, key });
    if (!document?.requestHash) throw new ServiceError('not_found', 'no document for this Idempotency-Key');
    return {
      auditId: document.auditId,
      requestHash: document.requestHash,
      fileName: document.fileName,
      signedAt: document.signedAt.toISOString(),
      fileHash: document.fileHash,
      objectKey: document.objectKey,
      size: document.size,
    };
  });
