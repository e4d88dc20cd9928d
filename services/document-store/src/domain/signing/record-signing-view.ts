import { SigningViewed, type SigningRecordView } from '@esign/contracts';
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

/**
 * `signing.record-view`: the recipient's browser showed the document. The first view sets `viewedAt`
 * and publishes `events.signing.viewed`; every view is logged (`signing.viewed`, with IP and user agent).
 */
export const recordSigningView = async (
  deps: SigningDeps,
  request: z.output<(typeof SigningRecordView)['request']>,
): Promise<{ sendId: string; viewedAt: string; firstView: boolean }> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const row = await findRequestByToken(client, request.tokenHash, { lock: true });
    if (!row) throw notFound('signing link');
    requirePending(row, now);
    const firstView = row.viewedAt === null;
    const viewedAt = row.viewedAt ?? now;
    await appendSigningEvent(client, row.id, {
      event: 'signing.viewed',
      timestamp: now,
      details: { ipAddress: request.ipAddress, userAgent: request.userAgent, firstView },
      byRecipient: true,
    });
    if (firstView) {
      await updateRequest(client, row.id, { viewed_at: now });
      await insertOutbox(
        client,
        signingOutboxEntry(SigningViewed.subject, (eventId) => ({
          ...eventBase(row, eventId),
          viewedAt: now.toISOString(),
        })),
      );
    }
    return { sendId: row.id, viewedAt: viewedAt.toISOString(), firstView };
  });
};
