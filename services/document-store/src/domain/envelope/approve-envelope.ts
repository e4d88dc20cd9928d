import { EnvelopeRecipientApproved, type EnvelopeApprove, type TActionReply } from '@esign/contracts';
import type { z } from 'zod';
import { inTransaction } from '../../db/signing-repository';
import {
  envelopeEvent,
  eventRecipient,
  findByLink,
  requireCanAct,
  requireCodeVerified,
  type EnvelopeDeps,
} from './envelope-deps';
import { finishAct } from './finish-act';

/** `envelope.approve`: an approver approves (`conflict` for anyone else); as a revision without a document. */
export const approveEnvelope = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeApprove)['request']>,
): Promise<TActionReply> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const target = await findByLink(client, request.tokenHash, now, { lock: true });
    requireCanAct(target, now, ['approver']);
    requireCodeVerified(target);
    const { envelope } = target.aggregate;
    const { recipient } = target;
    return finishAct(client, {
      target,
      status: 'approved',
      now,
      story: [
        {
          recipientId: recipient.id,
          event: 'approved',
          at: now,
          ipAddress: request.ipAddress,
          userAgent: request.userAgent,
          details: {
            recipientId: recipient.id,
            name: recipient.name,
            email: recipient.email,
            ipAddress: request.ipAddress,
            userAgent: request.userAgent,
          },
        },
      ],
      event: envelopeEvent(EnvelopeRecipientApproved.subject, envelope, now, {
        recipient: eventRecipient(recipient),
        ipAddress: request.ipAddress,
        userAgent: request.userAgent,
      }),
    });
  });
};
