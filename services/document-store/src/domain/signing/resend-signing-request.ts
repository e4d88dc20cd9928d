import { SigningRequested, type SigningResend } from '@esign/contracts';
import type { z } from 'zod';
import {
  appendSigningEvent,
  eventBase,
  inTransaction,
  insertOutbox,
  lockRequest,
  signingOutboxEntry,
} from '../../db/signing-repository';
import { notFound, requirePending, type SigningDeps } from './signing-deps';

/**
 * `signing.resend`: `events.signing.requested` again with `resend: true` (the mailer's new link replaces
 * the earlier ones). The expiry and the reminder schedule stay as they were.
 */
export const resendSigningRequest = async (
  deps: SigningDeps,
  request: z.output<(typeof SigningResend)['request']>,
): Promise<{ sendId: string; status: 'pending'; expiresAt: string }> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const row = await lockRequest(client, { sendId: request.sendId, accountId: request.accountId });
    if (!row) throw notFound();
    requirePending(row, now);
    await appendSigningEvent(client, row.id, { event: 'signing.resent', timestamp: now, details: {} });
    await insertOutbox(
      client,
      signingOutboxEntry(SigningRequested.subject, (eventId) => ({
        ...eventBase(row, eventId),
        subject: row.subject,
        message: row.message,
        expiresAt: row.expiresAt.toISOString(),
        requestedAt: now.toISOString(),
        resend: true,
      })),
    );
    return { sendId: row.id, status: 'pending' as const, expiresAt: row.expiresAt.toISOString() };
  });
};
