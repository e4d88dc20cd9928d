import {
  EnvelopeRecipientTurn,
  ServiceError,
  type EnvelopeResendRecipient,
  type TEnvelope,
} from '@esign/contracts';
import type { z } from 'zod';
import { appendStory, findEnvelope } from '../../db/envelope-repository';
import { inTransaction, insertOutbox } from '../../db/signing-repository';
import { resendSigningRequest } from '../signing/resend-signing-request';
import { getEnvelope } from './get-envelope';
import {
  envelopeEvent,
  eventRecipient,
  notFound,
  sendOf,
  requireCanAct,
  toEnvelopeView,
  type EnvelopeDeps,
} from './envelope-deps';

/**
 * `envelope.resend-recipient`: the sender asks for a recipient's email again. Publishes
 * `events.envelope.recipient-turn` with reason `resend` (the mailer attaches a new link that replaces
 * the earlier ones) and logs `resent` in the story. `conflict` unless the recipient could act now (a
 * signer or approver of the acting group who has not acted, the envelope pending) and is emailed at all
 * (embedded recipients are not: their sender's site asks for a signing URL). A send's recipient is
 * emailed again as the send's resend does (`signing.resend`: a new link, the old one dead).
 */
export const resendEnvelopeRecipient = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeResendRecipient)['request']>,
): Promise<TEnvelope> => {
  const sendId = await sendOf(deps, request);
  if (sendId !== null) {
    const sent = await getEnvelope(deps, request);
    if (!sent.recipients.some((r) => r.recipientId === request.recipientId)) throw notFound('recipient');
    await resendSigningRequest(deps, { sendId, accountId: request.accountId });
    return getEnvelope(deps, request);
  }
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const aggregate = await findEnvelope(client, request, { lock: true });
    if (!aggregate) throw notFound();
    const recipient = aggregate.recipients.find((r) => r.id === request.recipientId);
    if (!recipient) throw notFound('recipient');
    requireCanAct({ aggregate, recipient }, now, ['signer', 'approver']);
    if (recipient.embedded) {
      throw new ServiceError(
        'conflict',
        'an embedded recipient gets no email: ask for a new signing URL instead',
        'embedded',
      );
    }
    const { envelope } = aggregate;
    await insertOutbox(
      client,
      envelopeEvent(EnvelopeRecipientTurn.subject, envelope, now, {
        recipient: eventRecipient(recipient),
        reason: 'resend',
        expiresAt: envelope.expiresAt.toISOString(),
        requireEmailCode: recipient.requireEmailCode,
      }),
    );
    await appendStory(client, envelope.id, [
      {
        recipientId: recipient.id,
        event: 'resent',
        at: now,
        ipAddress: null,
        userAgent: null,
        details: { recipientId: recipient.id, name: recipient.name, email: recipient.email },
      },
    ]);
    return toEnvelopeView(aggregate, now);
  });
};
