import { ServiceError, type DocumentList, type TListDocumentsRequest } from '@esign/contracts';
import type { z } from 'zod';
import type { DocumentRepository } from '../db/document-repository';
import type { TDocumentQuery } from '../db/list-documents-query';
import { decodeCursor, encodeCursor } from './list-cursor';
import { toDocumentRecord } from './to-document-record';

export type TListDocumentsReply = z.infer<(typeof DocumentList)['reply']>;

/**
 * One page of an account's documents, filtered and sorted, by page number or after a cursor; `pages`
 * is 0 when nothing matches. The page and the total are read at once.
 */
export const listDocuments = async (options: {
  documents: DocumentRepository;
  request: TListDocumentsRequest;
}): Promise<TListDocumentsReply> => {
  const { request } = options;
  if (request.cursor !== undefined && request.page !== 1) {
    throw new ServiceError('invalid_argument', 'page must be 1 (or absent) with a cursor', 'page');
  }
  const after = request.cursor === undefined ? undefined : decodeCursor(request.cursor, request);
  const query: TDocumentQuery = {
    accountId: request.accountId,
    offset: after ? 0 : (request.page - 1) * request.limit,
    after,
    limit: request.limit,
    search: request.search || undefined,
    signedFrom: request.signedFrom ? new Date(request.signedFrom) : undefined,
    signedBefore: request.signedBefore ? new Date(request.signedBefore) : undefined,
    sortBy: request.sortBy,
    sortDir: request.sortDir,
  };
  const [rows, count] = await Promise.all([
    options.documents.listDocuments(query),
    options.documents.countDocuments(query),
  ]);
  const page = rows.slice(0, request.limit);
  const last = page.at(-1);
  return {
    documents: page.map(toDocumentRecord),
    total: count.total,
    totalExact: count.exact,
    page: request.page,
    pages: Math.ceil(count.total / request.limit),
    nextCursor:
      rows.length > request.limit && last
        ? encodeCursor(request, { sortKey: last.sortKey, id: last.id })
        : null,
  };
};
