import type { Bus } from '@esign/bus';
import {
  DocumentSigned,
  EnvelopeCanceled,
  EnvelopeCodeRequested,
  EnvelopeCompleted,
  EnvelopeDeclined,
  EnvelopeExpired,
  EnvelopeFinalizeDue,
  EnvelopeRecipientApproved,
  EnvelopeRecipientSigned,
  EnvelopeRecipientTurn,
  EnvelopeRecipientViewed,
  EnvelopeSent,
  SigningCanceled,
  SigningCompleted,
  SigningDeclined,
  SigningExpired,
  SigningReminderDue,
  SigningRequested,
  SigningViewed,
  type EventContract,
} from '@esign/contracts';
import { inTraceOf, type Logger } from '@esign/telemetry';
import type { z } from 'zod';
import type { TBatchOutcome, TOutboxRow } from './outbox-repository';

/** The durable events document-store writes through its outbox, by subject. */
export const OUTBOX_EVENTS: ReadonlyMap<string, EventContract<z.ZodType>> = new Map([
  [DocumentSigned.subject, DocumentSigned],
  [SigningRequested.subject, SigningRequested],
  [SigningReminderDue.subject, SigningReminderDue],
  [SigningViewed.subject, SigningViewed],
  [SigningCompleted.subject, SigningCompleted],
  [SigningDeclined.subject, SigningDeclined],
  [SigningCanceled.subject, SigningCanceled],
  [SigningExpired.subject, SigningExpired],
  [EnvelopeSent.subject, EnvelopeSent],
  [EnvelopeRecipientTurn.subject, EnvelopeRecipientTurn],
  [EnvelopeRecipientViewed.subject, EnvelopeRecipientViewed],
  [EnvelopeRecipientSigned.subject, EnvelopeRecipientSigned],
  [EnvelopeRecipientApproved.subject, EnvelopeRecipientApproved],
  [EnvelopeFinalizeDue.subject, EnvelopeFinalizeDue],
  [EnvelopeCompleted.subject, EnvelopeCompleted],
  [EnvelopeDeclined.subject, EnvelopeDeclined],
  [EnvelopeCanceled.subject, EnvelopeCanceled],
  [EnvelopeExpired.subject, EnvelopeExpired],
  [EnvelopeCodeRequested.subject, EnvelopeCodeRequested],
] as [string, EventContract<z.ZodType>][]);

/**
 * Publish a batch of outbox rows to JetStream, all at once, each with its row id as `Nats-Msg-Id` so
 * that a row sent twice (a crash between publish and commit, or two replicas) is stored once within
 * the duplicate window. The publishes share the connection's writes and their acknowledgements are
 * awaited together, so a batch costs about one round trip instead of one per row.
 * Rows that can never be published (unknown subject, payload that fails its contract) are declined
 * and logged instead of blocking the ones behind them; a bus failure is reported as the batch's
 * `failure`, and the rows it hit stay unpublished while the acknowledged ones are marked.
 */
export const publishOutboxBatch = (deps: { bus: Bus; logger: Logger }) => {
  // Each declined row is logged once per process, not on every poll.
  const reported = new Set<string>();
  const decline = (row: TOutboxRow, log: () => void): void => {
    if (!reported.has(row.id)) log();
    reported.add(row.id);
  };
  const send = async (row: TOutboxRow): Promise<string | undefined> => {
    const contract = OUTBOX_EVENTS.get(row.subject);
    if (!contract) {
      decline(row, () =>
        deps.logger.error('outbox row has an unknown subject; left unpublished', {
          outboxId: row.id,
          subject: row.subject,
        }),
      );
      return undefined;
    }
    const payload = contract.payload.safeParse(row.payload);
    if (!payload.success) {
      decline(row, () =>
        deps.logger.error('outbox row fails its contract; left unpublished', {
          outboxId: row.id,
          subject: row.subject,
          issues: payload.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
        }),
      );
      return undefined;
    }
    // The event carries the trace of the request that wrote it, so its consumers continue that trace.
    await inTraceOf(row.traceContext, () => deps.bus.publish(contract, payload.data, { msgId: row.id }));
    return row.id;
  };
  return async (rows: readonly TOutboxRow[]): Promise<TBatchOutcome> => {
    const results = await Promise.allSettled(rows.map(send));
    const published: string[] = [];
    let failure: unknown;
    for (const result of results) {
      if (result.status === 'rejected') failure ??= result.reason;
      else if (result.value !== undefined) published.push(result.value);
    }
    return { published, failure };
  };
};
