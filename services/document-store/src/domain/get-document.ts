import { ServiceError, type TDocumentDetail } from '@esign/contracts';
import type { DocumentRepository } from '../db/document-repository';
import { toDocumentRecord } from './to-document-record';

/**
 * One document with its audit log in sequence order. `not_found` both when the audit ID is unknown
 * and when it belongs to another account, so that no account learns of another's documents.
 */
export const getDocument = async (options: {
  documents: DocumentRepository;
  accountId: string;
  auditId: string;
}): Promise<TDocumentDetail> => {
  const found = await options.documents.findDocument({
    accountId: options.accountId,
    auditId: options.auditId,
  });
  if (!found) throw new ServiceError('not_found', 'document not found');
  const { document, auditLog } = found;
  return {
    ...toDocumentRecord(document),
    userAgent: document.userAgent,
    originalHash: document.originalHash,
    size: document.size,
    pageCount: document.pageCount,
    createdAt: document.createdAt.toISOString(),
    auditLog,
    objectKey: document.objectKey,
  };
};
