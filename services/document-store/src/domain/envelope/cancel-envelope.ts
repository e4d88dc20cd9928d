import { EnvelopeCanceled, ServiceError, type EnvelopeCancel, type TEnvelope } from '@esign/contracts';
import type { z } from 'zod';
import { appendStory, findEnvelope, revokeLinks, updateEnvelope } from '../../db/envelope-repository';
import { inTransaction, insertOutbox } from '../../db/signing-repository';
import { cancelSigningRequest } from '../signing/cancel-signing-request';
import { getEnvelope } from './get-envelope';
import {
  acts,
  effectiveStatus,
  envelopeEvent,
  eventRecipient,
  notFound,
  sendOf,
  toEnvelopeView,
  type EnvelopeDeps,
} from './envelope-deps';

/**
 * `envelope.cancel`: the sender cancels a pending envelope: `canceled`, every link dead, the story's
 * `canceled`, `events.envelope.canceled` telling every signer and approver whose turn had come and who
 * had not acted. `conflict` when it is no longer pending (or is being completed: everyone has acted).
 * A send's envelope is canceled as the send is (`signing.cancel`: `events.signing.canceled`).
 */
export const cancelEnvelope = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeCancel)['request']>,
): Promise<TEnvelope> => {
  const sendId = await sendOf(deps, request);
  if (sendId !== null) {
    await cancelSigningRequest(deps, { sendId, accountId: request.accountId });
    return getEnvelope(deps, request);
  }
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const found = await findEnvelope(client, request, { lock: true });
    if (!found) throw notFound();
    const { envelope, recipients } = found;
    const status = effectiveStatus(envelope, now);
    if (status !== 'pending') throw new ServiceError('conflict', `the envelope is ${status}`, 'status');
    if (envelope.completing) {
      throw new ServiceError(
        'conflict',
        'every recipient has acted: the envelope is being completed',
        'status',
      );
    }
    const notify = recipients.filter(
      (r) => acts(r) && r.notifiedAt !== null && (r.status === 'notified' || r.status === 'viewed'),
    );
    await updateEnvelope(client, envelope.id, {
      status: 'canceled',
      canceled_at: now,
      claim_recipient_id: null,
      claimed_until: null,
    });
    await revokeLinks(client, { envelopeId: envelope.id }, now);
    await appendStory(client, envelope.id, [
      { recipientId: null, event: 'canceled', at: now, ipAddress: null, userAgent: null, details: {} },
    ]);
    await insertOutbox(
      client,
      envelopeEvent(EnvelopeCanceled.subject, envelope, now, { notify: notify.map(eventRecipient) }),
    );
    return toEnvelopeView(
      {
        envelope: {
          ...envelope,
          status: 'canceled',
          canceledAt: now,
          claimRecipientId: null,
          claimedUntil: null,
        },
        recipients,
      },
      now,
    );
  });
};
