import { endpoint, type Endpoint } from '@esign/bus';
import { DocumentRecord } from '@esign/contracts';
import type pg from 'pg';
import type { DocumentRepository } from '../db/document-repository';
import { recordDocument } from '../domain/record-document';

/** `document.record`: document, audit log and outbox row in one transaction; then wake the relay. */
export const recordHandler = (deps: {
  documents: DocumentRepository;
  pool: pg.Pool;
  onRecorded: () => void;
  now?: () => Date;
}): Endpoint =>
  endpoint(DocumentRecord, async (request) => {
    const recorded = await recordDocument({
      documents: deps.documents,
      pool: deps.pool,
      request,
      ...(deps.now ? { now: deps.now() } : {}),
    });
    deps.onRecorded();
    return recorded;
  });
