import { SigningExpired, SigningReminderDue } from '@esign/contracts';
import { isMissingObject, type BlobStore } from '@esign/blob';
import type { Logger } from '@esign/telemetry';
import type pg from 'pg';
import { whileHoldingLock } from './sweep-lock';
import {
  appendSigningEvent,
  eventBase,
  inTransaction,
  insertOutbox,
  REQUEST_COLUMNS,
  signingOutboxEntry,
  updateRequest,
  type TSigningRequestRow,
} from '../db/signing-repository';
import { reminderDueAt, type TReminderSchedule } from '../domain/signing/signing-deps';

/** Only one replica sweeps signing requests at a time: the others skip the run. */
const LOCK = 'documents:signing-sweep';

export interface TSigningSweepResult {
  /** Send IDs marked expired in this run. */
  readonly expired: string[];
  /** Reminders published: send ID and reminder number. */
  readonly reminded: { sendId: string; reminderNumber: number }[];
  /** Originals removed from object storage (requests that have ended). */
  readonly originalsRemoved: string[];
}

export interface SigningSweep {
  /** One run at `now`; `undefined` when another replica holds the sweep's lock. */
  runOnce(now?: Date): Promise<TSigningSweepResult | undefined>;
}

const EXPIRE_DUE = `
update documents.signing_requests set status = 'expired', expired_at = expires_at, next_reminder_at = null
where id in (
  select id from documents.signing_requests
  where status = 'pending' and expires_at <= $1
  order by expires_at limit $2 for update skip locked
)
returning ${REQUEST_COLUMNS}`;

const ORIGINALS_TO_REMOVE = `
select id, object_key as "objectKey" from documents.signing_requests
where status <> 'pending' and original_removed_at is null
limit $1`;

const REMINDERS_DUE = `
select ${REQUEST_COLUMNS} from documents.signing_requests
where status = 'pending' and next_reminder_at is not null and next_reminder_at <= $1 and expires_at > $1
order by next_reminder_at limit $2 for update skip locked`;

/**
 * Expires pending requests at their `expiresAt` (`events.signing.expired`; `expiredAt` is the expiry
 * itself, not the time of the sweep) and publishes `events.signing.reminder-due` on the schedule:
 * reminder n is due at `sentAt + n × interval`, for n up to `max`, and only while before `expiresAt`.
 * A run publishes one reminder per request, the latest one due: reminders missed while no replica ran
 * collapse into one (the count jumps). Then the originals (under `pending/`) of requests that have
 * ended (signed, declined, canceled, expired) are removed from object storage: a final state never
 * changes, so nothing reads them again (a missing object counts as removed). Expiry and reminders of
 * a run are one transaction (rows, story entries and outbox
 * rows together); replicas take turns through a session advisory lock, tried, never waited for.
 */
export const createSigningSweep = (deps: {
  pool: pg.Pool;
  /** Where the originals are; without it, originals are left in place. */
  blob?: Pick<BlobStore, 'remove'>;
  logger: Logger;
  reminders: TReminderSchedule;
  batch: number;
  /** Wakes the outbox relay after a run that wrote events. */
  onWritten?: () => void;
  /** The clock of a run without an explicit time (the signing requests' clock). */
  now?: () => Date;
}): SigningSweep => ({
  async runOnce(now = deps.now?.() ?? new Date()) {
    return whileHoldingLock(deps.pool, LOCK, async () => {
      const result = await inTransaction(deps.pool, async (client) => {
        const expired = await client.query<TSigningRequestRow>(EXPIRE_DUE, [now, deps.batch]);
        for (const row of expired.rows) {
          const expiredAt = row.expiredAt ?? row.expiresAt;
          await appendSigningEvent(client, row.id, {
            event: 'signing.expired',
            timestamp: expiredAt,
            details: {},
          });
          await insertOutbox(
            client,
            signingOutboxEntry(SigningExpired.subject, (eventId) => ({
              ...eventBase(row, eventId),
              expiredAt: expiredAt.toISOString(),
            })),
          );
        }
        const reminded: { sendId: string; reminderNumber: number }[] = [];
        const due = await client.query<TSigningRequestRow>(REMINDERS_DUE, [now, deps.batch]);
        for (const row of due.rows) {
          const elapsed = Math.floor((now.getTime() - row.sentAt.getTime()) / deps.reminders.intervalMs);
          const reminderNumber = Math.min(elapsed, deps.reminders.max);
          if (reminderNumber > row.reminderCount) {
            await appendSigningEvent(client, row.id, {
              event: 'signing.reminder-due',
              timestamp: now,
              details: { reminderNumber },
            });
            await insertOutbox(
              client,
              signingOutboxEntry(SigningReminderDue.subject, (eventId) => ({
                ...eventBase(row, eventId),
                subject: row.subject,
                message: row.message,
                expiresAt: row.expiresAt.toISOString(),
                reminderNumber,
              })),
            );
            reminded.push({ sendId: row.id, reminderNumber });
          }
          const count = Math.max(reminderNumber, row.reminderCount);
          await updateRequest(client, row.id, {
            reminder_count: count,
            next_reminder_at: reminderDueAt(row, count + 1, deps.reminders),
          });
        }
        return { expired: expired.rows.map((r) => r.id), reminded };
      });
      if (result.expired.length > 0 || result.reminded.length > 0) deps.onWritten?.();
      const originalsRemoved = deps.blob ? await removeOriginals(deps.pool, deps.blob, deps.batch) : [];
      if (result.expired.length > 0 || result.reminded.length > 0 || originalsRemoved.length > 0) {
        deps.logger.info('signing requests swept', {
          expired: result.expired.length,
          reminded: result.reminded.length,
          originalsRemoved: originalsRemoved.length,
        });
      }
      return { ...result, originalsRemoved };
    });
  },
});

/** Remove the originals of ended requests, then note each removal (a failure leaves it for the next run). */
const removeOriginals = async (
  pool: pg.Pool,
  blob: Pick<BlobStore, 'remove'>,
  batch: number,
): Promise<string[]> => {
  const { rows } = await pool.query<{ id: string; objectKey: string }>(ORIGINALS_TO_REMOVE, [batch]);
  const removed: string[] = [];
  for (const row of rows) {
    await blob.remove(row.objectKey).catch((err: unknown) => {
      if (!isMissingObject(err)) throw err;
    });
    await pool.query('update documents.signing_requests set original_removed_at = now() where id = $1', [
      row.id,
    ]);
    removed.push(row.id);
  }
  return removed;
};
