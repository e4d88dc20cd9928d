import { EnvelopeFinalizeDue, type TActionReply } from '@esign/contracts';
import {
  appendStory,
  envelopeOutboxEntry,
  updateEnvelope,
  updateRecipientStatuses,
  type TEnvelopeStoryEntry,
  type TRecipientRow,
} from '../../db/envelope-repository';
import type { TOutboxEntry } from '../../db/insert-document-record';
import { insertOutboxEntries, type Queryable } from '../../db/signing-repository';
import { actingOrder, planTurn, type TLinkTarget } from './envelope-deps';

/**
 * The end of a signer's or approver's act, inside the transaction that holds the envelope's row: the
 * recipient's new status, the story entries, the event; then, when their group is done, the next
 * group's turn opens, and when every signer and approver has acted the envelope is marked completing
 * and `events.envelope.finalize-due` is queued. Acts on one envelope hold its row one after the other,
 * so exactly one of them sees the last act and queues the finalization.
 */
export const finishAct = async (
  client: Queryable,
  options: {
    target: Pick<TLinkTarget, 'aggregate' | 'recipient'>;
    status: 'signed' | 'approved';
    now: Date;
    story: TEnvelopeStoryEntry[];
    event: TOutboxEntry;
    /** Columns of the envelope to set besides completing (the head, for a revision). */
    envelopeUpdate?: Record<string, string | number | Date | null>;
  },
): Promise<TActionReply> => {
  const { target, status, now } = options;
  const { envelope } = target.aggregate;
  const recipients: TRecipientRow[] = target.aggregate.recipients.map((r) =>
    r.id === target.recipient.id ? { ...r, status, actedAt: now } : r,
  );
  const next = actingOrder(recipients);
  const completing = next === null;
  const turn =
    !completing && next !== target.recipient.orderGroup
      ? planTurn({ envelope, recipients }, next, now)
      : undefined;
  // One statement per table: the act's writes and those of the turn it opens (the story in order).
  await updateRecipientStatuses(client, [
    { id: target.recipient.id, status, actedAt: now },
    ...(turn?.statuses ?? []),
  ]);
  await appendStory(client, envelope.id, [...options.story, ...(turn?.story ?? [])]);
  await insertOutboxEntries(client, [
    options.event,
    ...(turn?.events ?? []),
    ...(completing
      ? [
          envelopeOutboxEntry(EnvelopeFinalizeDue.subject, (eventId) => ({
            eventId,
            envelopeId: envelope.id,
            accountId: envelope.accountId,
          })),
        ]
      : []),
  ]);
  if (completing || options.envelopeUpdate) {
    await updateEnvelope(client, envelope.id, {
      ...options.envelopeUpdate,
      ...(completing ? { completing: true } : {}),
    });
  }
  return {
    envelopeId: envelope.id,
    recipientId: target.recipient.id,
    recipientStatus: status,
    actedAt: now.toISOString(),
    envelopeStatus: 'pending',
    currentOrder: next,
    completing,
  };
};
