import { ServiceError, type EnvelopeReplaceRecipient, type TEnvelope } from '@esign/contracts';
import type { z } from 'zod';
import {
  appendStory,
  deleteLinks,
  findEnvelope,
  updateEnvelope,
  updateRecipient,
  type TRecipientRow,
} from '../../db/envelope-repository';
import { inTransaction } from '../../db/signing-repository';
import {
  actingOrder,
  effectiveStatus,
  hasActed,
  notFound,
  openTurn,
  toEnvelopeView,
  type EnvelopeDeps,
  refuseForSend,
} from './envelope-deps';

/**
 * `envelope.replace-recipient`: the sender puts another person in the place of a recipient who has not
 * acted. In one transaction: the replaced person's links are deleted (their link is unknown from now
 * on), the recipient takes the new name and email and starts again (`waiting`, no view, no reminder
 * sent; id, role, order, fields and settings kept), the story records `replaced` naming both people
 * (the replaced person's status too, for the certificate), and if the recipient's group is acting the
 * turn opens for the new person at once (`notified`, `events.envelope.recipient-turn` reason `turn`
 * unless embedded). A lease the replaced signer held on the head ends.
 */
export const replaceEnvelopeRecipient = async (
  deps: EnvelopeDeps,
  request: z.output<(typeof EnvelopeReplaceRecipient)['request']>,
): Promise<TEnvelope> => {
  const now = deps.now();
  return inTransaction(deps.pool, async (client) => {
    const aggregate = await findEnvelope(client, request, { lock: true });
    if (!aggregate) throw notFound();
    const replaced = aggregate.recipients.find((r) => r.id === request.recipientId);
    if (!replaced) throw notFound('recipient');
    const { envelope } = aggregate;
    refuseForSend(envelope, 'its recipient cannot be replaced; cancel it and send again');
    const status = effectiveStatus(envelope, now);
    if (status !== 'pending') throw new ServiceError('conflict', `the envelope is ${status}`, 'status');
    if (envelope.completing) {
      throw new ServiceError('conflict', 'the envelope is being completed', 'status');
    }
    if (hasActed(replaced)) {
      throw new ServiceError('conflict', `the recipient has already ${replaced.status}`, 'status');
    }
    const email = request.email.toLowerCase();
    const taken = aggregate.recipients.some(
      (r) => r.id !== replaced.id && r.orderGroup === replaced.orderGroup && r.email.toLowerCase() === email,
    );
    if (taken) {
      throw new ServiceError(
        'invalid_argument',
        `email: ${request.email} is already a recipient in group ${replaced.orderGroup}`,
        'email',
      );
    }
    // Decided before the change: a cc's place never gets a turn, and the acting group stays the same
    // (the recipient has not acted either way).
    const turnCame = replaced.status !== 'waiting';

    await deleteLinks(client, replaced.id);
    if (envelope.claimRecipientId === replaced.id) {
      await updateEnvelope(client, envelope.id, { claim_recipient_id: null, claimed_until: null });
    }
    const fresh: TRecipientRow = {
      ...replaced,
      name: request.name,
      email: request.email,
      status: 'waiting',
      notifiedAt: null,
      viewedAt: null,
      remindersSent: 0,
      lastRemindedAt: null,
      replaces: [
        ...(replaced.replaces ?? []),
        { name: replaced.name, email: replaced.email, replacedAt: now },
      ],
    };
    await updateRecipient(client, replaced.id, {
      name: fresh.name,
      email: fresh.email,
      status: 'waiting',
      notified_at: null,
      viewed_at: null,
      reminders_sent: 0,
      last_reminded_at: null,
    });
    await appendStory(client, envelope.id, [
      {
        recipientId: replaced.id,
        event: 'replaced',
        at: now,
        ipAddress: null,
        userAgent: null,
        details: {
          recipientId: replaced.id,
          replacedName: replaced.name,
          replacedEmail: replaced.email,
          replacedStatus: replaced.status,
          name: fresh.name,
          email: fresh.email,
        },
      },
    ]);
    let recipients = aggregate.recipients.map((r) => (r.id === replaced.id ? fresh : r));
    const order = actingOrder(recipients);
    if (turnCame && order === fresh.orderGroup) {
      recipients = await openTurn(client, { envelope, recipients }, order, now);
    }
    const claimHeld = envelope.claimRecipientId === replaced.id;
    return toEnvelopeView(
      {
        envelope: claimHeld ? { ...envelope, claimRecipientId: null, claimedUntil: null } : envelope,
        recipients,
      },
      now,
    );
  });
};
