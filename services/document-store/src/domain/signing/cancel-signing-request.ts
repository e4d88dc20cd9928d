import { SigningCanceled, type SigningCancel } from '@esign/contracts';
import type { z } from 'zod';
import {
  appendSigningEvent,
  eventBase,
  inTransaction,
  insertOutbox,
  lockRequest,
  signingOutboxEntry,
  updateRequest,
} from '../../db/signing-repository';
import { notFound, requirePending, type SigningDeps } from './signing-deps';

/** `signing.cancel`: the sender ends a pending request; its links die; `events.signing.canceled`. */
export const cancelSigningRequest = async (
  deps: SigningDeps,
  request: z.output<(typeof SigningCancel)['request']>,
): Promise<{ sendId: string; status: 'canceled'; canceledAt: string }> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const row = await lockRequest(client, { sendId: request.sendId, accountId: request.accountId });
    if (!row) throw notFound();
    requirePending(row, now);
    await updateRequest(client, row.id, { status: 'canceled', canceled_at: now, next_reminder_at: null });
    await appendSigningEvent(client, row.id, { event: 'signing.canceled', timestamp: now, details: {} });
    await insertOutbox(
      client,
      signingOutboxEntry(SigningCanceled.subject, (eventId) => ({
        ...eventBase(row, eventId),
        canceledAt: now.toISOString(),
      })),
    );
    return { sendId: row.id, status: 'canceled' as const, canceledAt: now.toISOString() };
  });
};
