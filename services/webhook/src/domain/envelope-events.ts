import { createHash } from 'node:crypto';
import type {
  EnvelopeRecipientViewed,
  EnvelopeSent,
  TEnvelopeCompletedEvent,
  TEnvelopeDeclinedEvent,
  TEnvelopeEndedEvent,
  TEventRecipient,
  TRecipientTurnEvent,
} from '@esign/contracts';
import type { z } from 'zod';
import type { NewEvent } from '../db/store';
import { publicEventId } from './events';

type TEnvelopeSentEvent = z.infer<(typeof EnvelopeSent)['payload']>;
/** The payload of `events.envelope.recipient-viewed`, `-signed` and `-approved` (one schema). */
type TRecipientActedEvent = z.infer<(typeof EnvelopeRecipientViewed)['payload']>;

/**
 * The id of a second webhook event made from one source event (`recipient.declined` beside
 * `envelope.declined`): `evt_` + 32 hex digits of SHA-256 over the source id and the type, so that it
 * is as stable as the first (a redelivery maps to the same event) and never equal to it.
 */
export const derivedEventId = (uuid: string, type: string): string =>
  `evt_${createHash('sha256').update(`${uuid.toLowerCase()}/${type}`).digest('hex').slice(0, 32)}`;

/** Only the public facts of a recipient: no link, no fields, no email code. */
const recipientOf = (r: TEventRecipient) => ({
  recipientId: r.recipientId,
  name: r.name,
  email: r.email,
  role: r.role,
  order: r.order,
});

/** What every envelope webhook event shares; never the sender's email (the receiver is the sender). */
const base = (
  event: { eventId: string; accountId: string; occurredAt: string; envelopeId: string; auditId: string },
  type: string,
) => ({
  head: {
    id: publicEventId(event.eventId),
    accountId: event.accountId,
    type,
    occurredAt: new Date(event.occurredAt),
    objectKey: null,
  },
  data: { envelopeId: event.envelopeId, auditId: event.auditId },
});

/** `events.envelope.sent` → `envelope.sent`. */
export const envelopeSentEvent = (event: TEnvelopeSentEvent): NewEvent => {
  const { head, data } = base(event, 'envelope.sent');
  return {
    ...head,
    data: {
      ...data,
      fileName: event.fileName,
      subject: event.subject,
      recipients: event.recipients.map(recipientOf),
      expiresAt: event.expiresAt,
    },
  };
};

/**
 * `events.envelope.recipient-turn` → `recipient.notified`, for a turn only: a resend or a reminder is
 * the same recipient told again, not news for the sender's system (none).
 */
export const recipientNotifiedEvents = (event: TRecipientTurnEvent): NewEvent[] => {
  if (event.reason !== 'turn') return [];
  const { head, data } = base(event, 'recipient.notified');
  return [{ ...head, data: { ...data, recipient: recipientOf(event.recipient) } }];
};

/** `events.envelope.recipient-viewed|signed|approved` → `recipient.viewed|signed|approved`. */
export const recipientActedEvent = (
  type: 'recipient.viewed' | 'recipient.signed' | 'recipient.approved',
  event: TRecipientActedEvent,
): NewEvent => {
  const { head, data } = base(event, type);
  return {
    ...head,
    data: {
      ...data,
      recipient: recipientOf(event.recipient),
      at: event.occurredAt,
      ipAddress: event.ipAddress,
      userAgent: event.userAgent,
    },
  };
};

/**
 * `events.envelope.declined` → two webhook events: `envelope.declined` (the envelope ended; its id is
 * the source's, as for every other event) and `recipient.declined` (the decliner; a derived id).
 */
export const envelopeDeclinedEvents = (event: TEnvelopeDeclinedEvent): NewEvent[] => {
  const envelope = base(event, 'envelope.declined');
  const recipient = base(event, 'recipient.declined');
  const decliner = recipientOf(event.decliner);
  return [
    {
      ...recipient.head,
      id: derivedEventId(event.eventId, 'recipient.declined'),
      data: { ...recipient.data, recipient: decliner, reason: event.reason, at: event.occurredAt },
    },
    {
      ...envelope.head,
      data: { ...envelope.data, reason: event.reason, decliner, at: event.occurredAt },
    },
  ];
};

/**
 * `events.envelope.completed` → `envelope.completed`; the completed document's key is kept for the
 * download link each attempt carries (as `signing.completed`'s).
 */
export const envelopeCompletedEvent = (event: TEnvelopeCompletedEvent): NewEvent => {
  const { head, data } = base(event, 'envelope.completed');
  return {
    ...head,
    occurredAt: new Date(event.completedAt),
    objectKey: event.objectKey,
    data: {
      ...data,
      fileName: event.fileName,
      fileHash: event.fileHash,
      completedAt: event.completedAt,
      size: event.size,
      recipients: event.recipients.map(recipientOf),
    },
  };
};

/** `events.envelope.canceled|expired` → `envelope.canceled|expired`. */
export const envelopeEndedEvent = (
  type: 'envelope.canceled' | 'envelope.expired',
  event: TEnvelopeEndedEvent,
): NewEvent => {
  const { head, data } = base(event, type);
  return { ...head, data: { ...data, at: event.occurredAt } };
};
