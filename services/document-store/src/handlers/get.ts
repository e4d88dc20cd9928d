import { endpoint, type Endpoint } from '@esign/bus';
import { DocumentGet } from '@esign/contracts';
import type { DocumentRepository } from '../db/document-repository';
import { getDocument } from '../domain/get-document';

/** `document.get`: one of the account's documents with its audit log. */
export const getHandler = (deps: { documents: DocumentRepository }): Endpoint =>
  endpoint(DocumentGet, (request) =>
    getDocument({ documents: deps.documents, accountId: request.accountId, auditId: request.auditId }),
  );
