import { endpoint, type Endpoint } from '@esign/bus';
import { DocumentList } from '@esign/contracts';
import type { DocumentRepository } from '../db/document-repository';
import { listDocuments } from '../domain/list-documents';

/** `document.list`: one page of the account's documents. */
export const listHandler = (deps: { documents: DocumentRepository }): Endpoint =>
  endpoint(DocumentList, (request) => listDocuments({ documents: deps.documents, request }));
