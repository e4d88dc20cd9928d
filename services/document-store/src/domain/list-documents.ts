import type { DocumentList, TListDocumentsRequest } from '@esign/contracts';
import type { z } from 'zod';
import type { DocumentRepository } from '../db/document-repository';
import { toDocumentRecord } from './to-document-record';

export type TListDocumentsReply = z.infer<(typeof DocumentList)['reply']>;

/** One page of an account's documents, filtered and sorted; `pages` is 0 when nothing matches. */
export const listDocuments = async (options: {
  documents: DocumentRepository;
  request: TListDocumentsRequest;
}): Promise<TListDocumentsReply> => {
  const { request } = options;
  const { rows, total } = await options.documents.listDocuments({
    accountId: request.accountId,
    offset: (request.page - 1) * request.limit,
    limit: request.limit,
    search: request.search || undefined,
    signedFrom: request.signedFrom ? new Date(request.signedFrom) : undefined,
    signedBefore: request.signedBefore ? new Date(request.signedBefore) : undefined,
    sortBy: request.sortBy,
    sortDir: request.sortDir,
  });
  return {
    documents: rows.map(toDocumentRecord),
    total,
    page: request.page,
    pages: Math.ceil(total / request.limit),
  };
};
