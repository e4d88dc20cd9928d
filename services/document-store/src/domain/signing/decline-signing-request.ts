import { SigningDeclined, type SigningDecline } from '@esign/contracts';
import type { z } from 'zod';
import {
  appendSigningEvent,
  eventBase,
  findRequestByToken,
  inTransaction,
  insertOutbox,
  signingOutboxEntry,
  updateRequest,
} from '../../db/signing-repository';
import { notFound, requirePending, type SigningDeps } from './signing-deps';

/** `signing.decline`: declined with the recipient's reason, IP and user agent; `events.signing.declined`. */
export const declineSigningRequest = async (
  deps: SigningDeps,
  request: z.output<(typeof SigningDecline)['request']>,
): Promise<{ sendId: string; status: 'declined'; declinedAt: string }> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const row = await findRequestByToken(client, request.tokenHash, { lock: true });
    if (!row) throw notFound('signing link');
    requirePending(row, now);
    await updateRequest(client, row.id, {
      status: 'declined',
      declined_at: now,
      decline_reason: request.reason,
      next_reminder_at: null,
    });
    await appendSigningEvent(client, row.id, {
      event: 'signing.declined',
      timestamp: now,
      details: { reason: request.reason, ipAddress: request.ipAddress, userAgent: request.userAgent },
      byRecipient: true,
    });
    await insertOutbox(
      client,
      signingOutboxEntry(SigningDeclined.subject, (eventId) => ({
        ...eventBase(row, eventId),
        declinedAt: now.toISOString(),
        reason: request.reason,
      })),
    );
    return { sendId: row.id, status: 'declined' as const, declinedAt: now.toISOString() };
  });
};
