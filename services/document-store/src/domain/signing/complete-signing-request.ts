import { ServiceError, SigningCompleted } from '@esign/contracts';
import type { TStoredAuditEvent } from '@esign/contracts';
import type pg from 'pg';
import type { TOutboxEntry } from '../../db/insert-document-record';
import {
  eventBase,
  findRequestByToken,
  inTransaction,
  readSigningEvents,
  signingOutboxEntry,
  updateRequest,
} from '../../db/signing-repository';
import type { TAuditEntryDraft } from '../chain-audit-log';
import { notFound, requirePending } from './signing-deps';

/**
 * Record a signed document that signs a signing request, in one transaction: lock the request through
 * its live link, check it is still pending and that the document is its own (account, reserved audit
 * ID), write the document (its audit log headed by the request's story) with `write`, mark the request
 * signed, and publish `events.signing.completed` with the document's outbox entries. A second submit
 * finds the request signed: `conflict`, and nothing is written.
 */
export const completeSigningRequest = async (options: {
  pool: pg.Pool;
  now: Date;
  sendId: string;
  tokenHash: string;
  document: {
    accountId: string;
    auditId: string;
    signedAt: Date;
    fileHash: string;
    objectKey: string;
    size: number;
  };
  write: (
    client: pg.PoolClient,
    input: { story: TAuditEntryDraft[]; events: TOutboxEntry[] },
  ) => Promise<{ auditLog: readonly TStoredAuditEvent[]; recorded: boolean }>;
}): Promise<boolean> => {
  const { document: d } = options;
  return inTransaction(options.pool, async (client) => {
    const row = await findRequestByToken(client, options.tokenHash, { lock: true });
    if (!row || row.id !== options.sendId) throw notFound('signing link');
    if (row.accountId !== d.accountId || row.auditId !== d.auditId) {
      throw new ServiceError(
        'invalid_argument',
        'signingRequest: the document is not the one this request reserved',
        'signingRequest',
      );
    }
    requirePending(row, options.now);
    const story = (await readSigningEvents(client, row.id)).map((e) => ({
      event: e.event,
      timestamp: e.timestamp.toISOString(),
      details: e.details,
    }));
    const completed = signingOutboxEntry(SigningCompleted.subject, (eventId) => ({
      ...eventBase(row, eventId),
      signedAt: d.signedAt.toISOString(),
      fileHash: d.fileHash,
      objectKey: d.objectKey,
      size: d.size,
    }));
    const { recorded } = await options.write(client, { story, events: [completed] });
    // The audit ID is reserved for this request, so a record can only exist if this one wrote it.
    if (!recorded) return false;
    await updateRequest(client, row.id, {
      status: 'signed',
      signed_at: d.signedAt,
      file_hash: d.fileHash,
      next_reminder_at: null,
      claimed_until: null,
    });
    return true;
  });
};
