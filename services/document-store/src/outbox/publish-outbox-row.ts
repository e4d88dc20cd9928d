import type { Bus } from '@esign/bus';
import { DocumentSigned, type EventContract } from '@esign/contracts';
import type { Logger } from '@esign/telemetry';
import type { z } from 'zod';
import type { TOutboxRow } from './outbox-repository';

/** The durable events document-store writes through its outbox, by subject. */
export const OUTBOX_EVENTS: ReadonlyMap<string, EventContract<z.ZodType>> = new Map([
  [DocumentSigned.subject, DocumentSigned],
]);

/**
 * Publish one outbox row to JetStream with the row id as `Nats-Msg-Id`, so that a row sent twice
 * (a crash between publish and commit, or two replicas) is stored once within the duplicate window.
 * Rows that can never be published (unknown subject, payload that fails its contract) are declined
 * and logged instead of blocking the ones behind them; bus failures throw and end the pass.
 */
export const publishOutboxRow = (deps: { bus: Bus; logger: Logger }) => {
  // Each declined row is logged once per process, not on every poll.
  const reported = new Set<string>();
  const decline = (row: TOutboxRow, log: () => void): boolean => {
    if (!reported.has(row.id)) log();
    reported.add(row.id);
    return false;
  };
  return async (row: TOutboxRow): Promise<boolean> => {
    const contract = OUTBOX_EVENTS.get(row.subject);
    if (!contract) {
      return decline(row, () =>
        deps.logger.error('outbox row has an unknown subject; left unpublished', {
          outboxId: row.id,
          subject: row.subject,
        }),
      );
    }
    const payload = contract.payload.safeParse(row.payload);
    if (!payload.success) {
      return decline(row, () =>
        deps.logger.error('outbox row fails its contract; left unpublished', {
          outboxId: row.id,
          subject: row.subject,
          issues: payload.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
        }),
      );
    }
    await deps.bus.publish(contract, payload.data, { msgId: row.id });
    return true;
  };
};
