import type { TWebhookDelivery } from '@esign/contracts';
import type { AttemptRow, DeliveryRow } from '../db/store';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A delivery with its attempt log as the API shows it; the next attempt only while it is pending. */
export const deliveryView = (
  row: DeliveryRow & { eventType: string; attemptLog: AttemptRow[] },
): TWebhookDelivery => ({
  id: row.id,
  eventId: row.eventId,
  eventType: row.eventType,
  kind: row.kind as TWebhookDelivery['kind'],
  status: row.status,
  attempts: row.attemptLog.length,
  nextAttemptAt: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
  createdAt: row.createdAt.toISOString(),
  attemptLog: row.attemptLog.map((a) => ({
    attemptedAt: a.attemptedAt.toISOString(),
    statusCode: a.statusCode,
    latencyMs: a.latencyMs,
    succeeded: a.succeeded,
    error: a.error,
    responseExcerpt: a.responseExcerpt,
  })),
});
