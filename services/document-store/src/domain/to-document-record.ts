import type { TDocumentRecord } from '@esign/contracts';
import type { TDocumentListRow } from '../db/list-documents-query';

/** A stored document as the list shows it; timestamps as ISO 8601 UTC with milliseconds. */
export const toDocumentRecord = (row: Omit<TDocumentListRow, 'sortKey'>): TDocumentRecord => ({
  id: row.id,
  fileName: row.fileName,
  signerName: row.signerName,
  signerEmail: row.signerEmail,
  signedAt: row.signedAt.toISOString(),
  auditId: row.auditId,
  fileHash: row.fileHash,
  ipAddress: row.ipAddress,
});
