import { ServiceError, type SigningAttachLink } from '@esign/contracts';
import type { z } from 'zod';
import { appendSigningEvent, attachLink, inTransaction, lockRequest } from '../../db/signing-repository';
import { notFound, requirePending, type SigningDeps } from './signing-deps';

/**
 * `signing.attach-link`: keep a link's token hash (never the token) for a pending request; `replace`
 * revokes the request's earlier links. Logged as `signing.emailed` in the request's story.
 */
export const attachSigningLink = async (
  deps: SigningDeps,
  request: z.output<(typeof SigningAttachLink)['request']>,
): Promise<{ sendId: string; expiresAt: string }> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const row = await lockRequest(client, { sendId: request.sendId });
    if (!row) throw notFound();
    requirePending(row, now);
    const outcome = await attachLink(client, {
      sendId: row.id,
      eventId: request.eventId,
      tokenHash: request.tokenHash,
      replace: request.mode === 'replace',
      now,
    });
    if (outcome === 'taken') {
      throw new ServiceError('conflict', 'tokenHash: this link is already attached', 'tokenHash');
    }
    await appendSigningEvent(client, row.id, {
      event: 'signing.emailed',
      timestamp: now,
      details: { recipientEmail: row.recipientEmail, eventId: request.eventId, mode: request.mode },
    });
    return { sendId: row.id, expiresAt: row.expiresAt.toISOString() };
  });
};
