import { EnvelopeRecipientViewed, ServiceError, type EnvelopeRecordView } from '@esign/contracts';
import type { z } from 'zod';
import { appendStory, markLinkUsed, updateRecipient } from '../../db/envelope-repository';
import { inTransaction, insertOutbox } from '../../db/signing-repository';
import {
  envelopeEvent,
  eventRecipient,
  findByLink,
  requireCanAct,
  requireCodeVerified,
  type EnvelopeDeps,
} from './envelope-deps';

/**
 * `envelope.record-view`: the recipient's page showed the document. Every view is in the story with IP
 * and user agent; the first sets `viewedAt` (status `viewed`) and publishes
 * `events.envelope.recipient-viewed`. An embedded link opens once: its first view marks it used, and a
 * later view through it is refused (`conflict`: ask the sender's site for a new signing URL), while the
 * page it opened goes on working. `conflict` when the recipient can no longer act.
 */
export const recordEnvelopeView = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeRecordView)['request']>,
): Promise<z.infer<(typeof EnvelopeRecordView)['reply']>> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const { aggregate, recipient, link } = await findByLink(client, request.tokenHash, now, { lock: true });
    requireCanAct({ aggregate, recipient }, now, ['signer', 'approver']);
    requireCodeVerified({ link, recipient });
    if (link.mode === 'embedded') {
      if (link.usedAt) {
        throw new ServiceError(
          'conflict',
          'this signing link was already opened: ask for a new one',
          'tokenHash',
        );
      }
      await markLinkUsed(client, link.tokenHash, now);
    }
    const { envelope } = aggregate;
    const firstView = recipient.viewedAt === null;
    await appendStory(client, envelope.id, [
      {
        recipientId: recipient.id,
        event: 'viewed',
        at: now,
        ipAddress: request.ipAddress,
        userAgent: request.userAgent,
        details: {
          recipientId: recipient.id,
          ipAddress: request.ipAddress,
          userAgent: request.userAgent,
          firstView,
        },
      },
    ]);
    if (firstView) {
      await updateRecipient(client, recipient.id, { status: 'viewed', viewed_at: now });
      await insertOutbox(
        client,
        envelopeEvent(EnvelopeRecipientViewed.subject, envelope, now, {
          recipient: eventRecipient(recipient),
          ipAddress: request.ipAddress,
          userAgent: request.userAgent,
        }),
      );
    }
    return {
      envelopeId: envelope.id,
      recipientId: recipient.id,
      viewedAt: (recipient.viewedAt ?? now).toISOString(),
      firstView,
    };
  });
};
