import { endpoint, type Endpoint } from '@esign/bus';
import { DocumentRecord } from '@esign/contracts';
import type { DocumentRepository } from '../db/document-repository';
import { recordDocument } from '../domain/record-document';

/** `document.record`: document, audit log and outbox row in one transaction; then wake the relay. */
export const recordHandler = (deps: { documents: DocumentRepository; onRecorded: () => void }): Endpoint =>
  endpoint(DocumentRecord, async (request) => {
    const recorded = await recordDocument({ documents: deps.documents, request });
    deps.onRecorded();
    return recorded;
  });
