import { ServiceError } from '@esign/contracts';
import type pg from 'pg';
import type { TSigningRequestRow } from '../../db/signing-repository';

/** The reminder schedule: the first `intervalMs` after sending, then every `intervalMs`, at most `max`. */
export interface TReminderSchedule {
  readonly intervalMs: number;
  readonly max: number;
}

/** What the signing-request operations use: the pool, the clock, the reminder schedule. */
export interface SigningDeps {
  readonly pool: pg.Pool;
  readonly now: () => Date;
  readonly reminders: TReminderSchedule;
}

/** The status as the outside sees it: a pending request past its expiry is expired, swept or not. */
export const effectiveStatus = (r: TSigningRequestRow, now: Date): TSigningRequestRow['status'] =>
  r.status === 'pending' && r.expiresAt.getTime() <= now.getTime() ? 'expired' : r.status;

/** `conflict` unless the request is pending and not past its expiry. */
export const requirePending = (r: TSigningRequestRow, now: Date): void => {
  const status = effectiveStatus(r, now);
  if (status !== 'pending') {
    throw new ServiceError('conflict', `the signing request is ${status}`, 'status');
  }
};

/**
 * When reminder `n` (1-based) falls due, or null when it never does: past the schedule's `max`, or at
 * or after the request's expiry.
 */
export const reminderDueAt = (
  r: { sentAt: Date; expiresAt: Date },
  n: number,
  schedule: TReminderSchedule,
): Date | null => {
  if (n < 1 || n > schedule.max) return null;
  const at = new Date(r.sentAt.getTime() + n * schedule.intervalMs);
  return at.getTime() < r.expiresAt.getTime() ? at : null;
};

export const notFound = (what = 'signing request'): ServiceError =>
  new ServiceError('not_found', `${what} not found`);
