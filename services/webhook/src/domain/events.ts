import type {
  TSigningCompletedEvent,
  TSigningDeclinedEvent,
  TSigningExpiredEvent,
  TSigningViewedEvent,
  DocumentSigned,
} from '@esign/contracts';
import type { z } from 'zod';
import type { NewEvent } from '../db/store';

/** `evt_` + the 32 hex digits of the source event's UUID: the same event always gets the same id. */
export const publicEventId = (uuid: string): string => `evt_${uuid.replace(/-/g, '').toLowerCase()}`;

/**
 * The webhook event of a document signature. Its id comes from the outbox row (the event's `eventId`,
 * also its `Nats-Msg-Id`); a document is signed once, so its id stands in for events published before
 * they carried one.
 */
export const documentSignedEvent = (
  payload: z.infer<(typeof DocumentSigned)['payload']>,
  msgId: string | undefined,
): NewEvent => ({
  id: publicEventId(payload.eventId ?? msgId ?? payload.documentId),
  accountId: payload.accountId,
  type: 'document.signed',
  occurredAt: new Date(payload.signedAt),
  objectKey: payload.objectKey ?? `signed/${payload.accountId}/${payload.auditId}.pdf`,
  data: {
    auditId: payload.auditId,
    status: 'signed',
    fileHash: payload.fileHash,
    signedAt: payload.signedAt,
    fileName: payload.fileName ?? null,
    signer:
      payload.signerName !== undefined
        ? { name: payload.signerName, email: payload.signerEmail ?? '' }
        : null,
    sendId: payload.sendId ?? null,
  },
});

type SigningEvent =
  | ({ type: 'signing.viewed' } & TSigningViewedEvent)
  | ({ type: 'signing.completed' } & TSigningCompletedEvent)
  | ({ type: 'signing.declined' } & TSigningDeclinedEvent)
  | ({ type: 'signing.expired' } & TSigningExpiredEvent);

/**
 * The webhook event of a signing request's step. Only the public facts: never the sender's email (the
 * receiver is the sender), never a link or its token (events carry none).
 */
export const signingEvent = (event: SigningEvent): NewEvent => {
  const base = {
    sendId: event.sendId,
    auditId: event.auditId,
    fileName: event.fileName,
    recipient: { name: event.recipientName, email: event.recipientEmail },
  };
  const common = { id: publicEventId(event.eventId), accountId: event.accountId, type: event.type };
  switch (event.type) {
    case 'signing.viewed':
      return {
        ...common,
        occurredAt: new Date(event.viewedAt),
        objectKey: null,
        data: { ...base, status: 'pending', viewedAt: event.viewedAt },
      };
    case 'signing.completed':
      return {
        ...common,
        occurredAt: new Date(event.signedAt),
        objectKey: event.objectKey,
        data: { ...base, status: 'signed', signedAt: event.signedAt, fileHash: event.fileHash },
      };
    case 'signing.declined':
      return {
        ...common,
        occurredAt: new Date(event.declinedAt),
        objectKey: null,
        data: { ...base, status: 'declined', declinedAt: event.declinedAt, reason: event.reason },
      };
    case 'signing.expired':
      return {
        ...common,
        occurredAt: new Date(event.expiredAt),
        objectKey: null,
        data: { ...base, status: 'expired', expiredAt: event.expiredAt },
      };
  }
};
