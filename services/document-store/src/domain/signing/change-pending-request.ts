import {
  appendSigningEvent,
  findRequestByToken,
  inTransaction,
  insertOutbox,
  lockRequest,
  updateRequest,
  type TSigningEventEntry,
  type TSigningRequestRow,
} from '../../db/signing-repository';
import type { TOutboxEntry } from '../../db/insert-document-record';
import { notFound, requirePending, type SigningDeps } from './signing-deps';

/** What one change does to a pending request, worked out from the request as it stands and the time. */
export interface TPendingRequestChange<R> {
  /** Columns of the request to set (none: the request itself stays as it is). */
  readonly update?: Record<string, string | number | Date | null>;
  /** The entry in the request's history. */
  readonly event: Omit<TSigningEventEntry, 'timestamp'> & { byRecipient?: boolean };
  /** The event to publish, through the outbox. */
  readonly publish: TOutboxEntry;
  readonly reply: R;
}

/**
 * The one shape of cancel, resend and decline: in one transaction, lock the request (by the sender's
 * send ID and account, or by the recipient's link), answer `not_found` when there is none and
 * `conflict` unless it is pending and unexpired, then apply the change `decide` works out: update it,
 * log the event, queue the outgoing event.
 */
export const changePendingRequest = async <R>(
  deps: Pick<SigningDeps, 'pool' | 'now'>,
  options: {
    find: { sendId: string; accountId: string } | { tokenHash: string };
    decide: (row: TSigningRequestRow, now: Date) => TPendingRequestChange<R>;
  },
): Promise<R> => {
  const now = deps.now();
  const { find } = options;
  return inTransaction(deps.pool, async (client) => {
    const row =
      'tokenHash' in find
        ? await findRequestByToken(client, find.tokenHash, { lock: true })
        : await lockRequest(client, find);
    if (!row) throw 'tokenHash' in find ? notFound('signing link') : notFound();
    requirePending(row, now);
    const change = options.decide(row, now);
    if (change.update) await updateRequest(client, row.id, change.update);
    await appendSigningEvent(client, row.id, { ...change.event, timestamp: now });
    await insertOutbox(client, change.publish);
    return change.reply;
  });
};
