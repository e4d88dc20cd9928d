import { EnvelopeDeclined, type EnvelopeDecline, type TActionReply } from '@esign/contracts';
import type { z } from 'zod';
import { appendStory, revokeLinks, updateEnvelope, updateRecipient } from '../../db/envelope-repository';
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
 * `envelope.decline`: a signer or approver declines with a reason: the envelope is `declined`, every
 * link dies, the story gets `declined` (IP, user agent, reason) and `events.envelope.declined` tells
 * the sender and those who already signed or approved (`notify`).
 */
export const declineEnvelope = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeDecline)['request']>,
): Promise<TActionReply> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const target = await findByLink(client, request.tokenHash, now, { lock: true });
    requireCanAct(target, now, ['signer', 'approver']);
    requireCodeVerified(target);
    const { envelope, recipients } = target.aggregate;
    const { recipient } = target;
    await updateRecipient(client, recipient.id, {
      status: 'declined',
      acted_at: now,
      decline_reason: request.reason,
    });
    await updateEnvelope(client, envelope.id, {
      status: 'declined',
      declined_at: now,
      decline_reason: request.reason,
      claim_recipient_id: null,
      claimed_until: null,
    });
    await revokeLinks(client, { envelopeId: envelope.id }, now);
    await appendStory(client, envelope.id, [
      {
        recipientId: recipient.id,
        event: 'declined',
        at: now,
        ipAddress: request.ipAddress,
        userAgent: request.userAgent,
        details: {
          recipientId: recipient.id,
          name: recipient.name,
          email: recipient.email,
          reason: request.reason,
          ipAddress: request.ipAddress,
          userAgent: request.userAgent,
        },
      },
    ]);
    await insertOutbox(
      client,
      envelopeEvent(EnvelopeDeclined.subject, envelope, now, {
        decliner: eventRecipient(recipient),
        reason: request.reason,
        notify: recipients
          .filter((r) => r.status === 'signed' || r.status === 'approved')
          .map(eventRecipient),
      }),
    );
    return {
      envelopeId: envelope.id,
      recipientId: recipient.id,
      recipientStatus: 'declined',
      actedAt: now.toISOString(),
      envelopeStatus: 'declined',
      currentOrder: null,
      completing: false,
    };
  });
};
