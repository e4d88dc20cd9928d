import { randomUUID } from 'node:crypto';
import { DocumentSigned, ServiceError, type TRecordDocumentRequest } from '@esign/contracts';
import type { z } from 'zod';
import { traceCarrier } from '@esign/telemetry';
import type { DocumentRepository } from '../db/document-repository';
import type pg from 'pg';
import {
  IdempotencyKeyTaken,
  insertDocumentRecord,
  type TNewDocument,
  type TOutboxEntry,
} from '../db/insert-document-record';
import { chainAuditLog } from './chain-audit-log';
import { findUnstorableText } from './find-unstorable-text';
import { completeSigningRequest } from './signing/complete-signing-request';

/** The audit event the store appends once the document is durable. */
export const RECORDED_EVENT = 'document.recorded';

/**
 * Record a signed document: the document row, its hash-chained audit log (the request's events, then
 * `document.recorded`) and the `events.document.signed` outbox row, all in one transaction.
 * `conflict` when the audit ID is already recorded, or when the account used the request's
 * Idempotency-Key before (field `Idempotency-Key`: the caller looks up what that key produced).
 */
export const recordDocument = async (options: {
  documents: DocumentRepository;
  /** For a document that signs a signing request: its transaction spans both. */
  pool: pg.Pool;
  request: TRecordDocumentRequest;
  now?: Date;
}): Promise<{ id: string }> => {
  const { request } = options;
  const unstorable = findUnstorableText(request);
  if (unstorable !== undefined) {
    throw new ServiceError(
      'invalid_argument',
      `${unstorable}: contains characters that cannot be stored`,
      unstorable,
    );
  }
  const id = randomUUID();
  const signedAt = new Date(request.signedAt);
  const recordedAt = options.now ?? new Date();
  // Timestamps are kept to the millisecond in UTC, so the hashed form is exactly the form read back.
  const drafts = [
    ...request.events.map((e) => ({
      event: e.event,
      timestamp: new Date(e.timestamp).toISOString(),
      details: e.details,
    })),
    { event: RECORDED_EVENT, timestamp: recordedAt.toISOString(), details: { fileHash: request.fileHash } },
  ];
  const document: TNewDocument = {
    id,
    accountId: request.accountId,
    auditId: request.auditId,
    fileName: request.fileName,
    signerName: request.signerName,
    signerEmail: request.signerEmail,
    ipAddress: request.ipAddress,
    userAgent: request.userAgent,
    signedAt,
    fileHash: request.fileHash,
    originalHash: request.originalHash,
    objectKey: request.objectKey,
    size: request.size,
    pageCount: request.pageCount,
    idempotencyKey: request.idempotency?.key,
    requestHash: request.idempotency?.requestHash,
  };
  const eventId = randomUUID();
  const signedEvent: TOutboxEntry = {
    id: eventId,
    subject: DocumentSigned.subject,
    // Built from fields the request schema already checked; the relay checks it again before publishing.
    payload: {
      documentId: id,
      accountId: request.accountId,
      auditId: request.auditId,
      fileHash: request.fileHash,
      signedAt: signedAt.toISOString(),
      eventId,
      fileName: request.fileName,
      signerName: request.signerName,
      signerEmail: request.signerEmail,
      objectKey: request.objectKey,
      sendId: request.signingRequest?.sendId,
      countFromRecord: request.countFromRecord,
    } satisfies z.input<(typeof DocumentSigned)['payload']>,
    // The event is published later, by the relay; it carries on this request's trace.
    traceContext: traceCarrier(),
  };
  const { signingRequest } = request;
  const write = signingRequest
    ? completeSigningRequest({
        pool: options.pool,
        now: recordedAt,
        sendId: signingRequest.sendId,
        tokenHash: signingRequest.tokenHash,
        document: {
          accountId: request.accountId,
          auditId: request.auditId,
          signedAt,
          fileHash: request.fileHash,
          objectKey: request.objectKey,
          size: request.size,
        },
        // The request's story (sent, emailed, viewed…) heads the document's audit log.
        write: async (client, { story, events }) => {
          const auditLog = chainAuditLog(request.auditId, [...story, ...drafts]);
          const recorded = await insertDocumentRecord(client, {
            document,
            auditLog,
            events: [signedEvent, ...events],
          });
          return { auditLog, recorded };
        },
      })
    : options.documents.recordDocument({
        document,
        auditLog: chainAuditLog(request.auditId, drafts),
        events: [signedEvent],
      });
  const recorded = await write.catch((err: unknown) => {
    if (err instanceof IdempotencyKeyTaken) {
      throw new ServiceError(
        'conflict',
        'Idempotency-Key: this key was already used for another document of this account',
        'Idempotency-Key',
      );
    }
    throw err;
  });
  if (!recorded) {
    throw new ServiceError(
      'conflict',
      `a document with audit ID ${request.auditId} is already recorded`,
      'auditId',
    );
  }
  return { id };
};
