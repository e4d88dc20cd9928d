import { z } from 'zod';
import { defineEvent, defineRequest } from './define';
import { ZAuditId, ZFileHash, ZIsoTimestamp } from './common';

/**
 * Send for signing: the contracts between document-store (which owns signing requests and publishes
 * their events through its outbox) and mailer (which emails people about them). The flow, the states
 * and the emails are described in docs/architecture.md, "Send for signing".
 *
 * The signing link's token never crosses the bus in plain text: the mailer generates it, hands only its
 * SHA-256 to document-store (`signing.attach-link`), and puts the token into the email alone. No event,
 * outbox row, log line or API response carries it.
 */

/** `send_` + 24 base62 characters: the public id of a signing request. */
export const ZSendId = z.string().regex(/^send_[A-Za-z0-9]{16,40}$/, 'not a send ID');
export type TSendId = z.infer<typeof ZSendId>;

/** SHA-256 of a signing-link token, lowercase hex (the only form in which a token is stored). */
export const ZSigningTokenHash = z.string().regex(/^[0-9a-f]{64}$/, 'not a SHA-256 hex digest');

/** Longest `subject` a sender may give (one line; CR/LF are refused at the edge and stripped by the mailer). */
export const MAX_SIGNING_SUBJECT_LENGTH = 200;
/** Longest personal `message` a sender may add to the request email. */
export const MAX_SIGNING_MESSAGE_LENGTH = 2000;
/** Longest decline reason (required, 1-1,000 characters). */
export const MAX_DECLINE_REASON_LENGTH = 1000;

/**
 * What every signing event carries: which request, and who the two parties are. `eventId` is unique
 * per event (document-store uses its outbox row id, which is also the `Nats-Msg-Id`): consumers
 * de-duplicate on it.
 */
const ZSigningEventBase = z.object({
  /** Unique per event; the same on every redelivery of it. */
  eventId: z.uuid(),
  sendId: ZSendId,
  /** The audit ID the signed document will carry (and the status endpoint takes). */
  auditId: ZAuditId,
  accountId: z.uuid(),
  /** The sending account's email: where sender notifications go (and the request email's Reply-To). */
  senderEmail: z.email(),
  recipientEmail: z.email(),
  recipientName: z.string().min(1).max(200),
  /** The original file's name, as uploaded. */
  fileName: z.string().min(1).max(255),
});

/**
 * A request to sign was created (or resent): the mailer emails the recipient a fresh signing link.
 * On `resend: true` the new link replaces every earlier one (`signing.attach-link` with `replace`).
 */
export const ZSigningRequestedEvent = ZSigningEventBase.extend({
  /** The email's subject as the sender gave it (default `Please sign: <fileName>`). */
  subject: z.string().min(1).max(MAX_SIGNING_SUBJECT_LENGTH),
  /** The sender's personal message, or null. Plain text; escaped wherever it is shown. */
  message: z.string().max(MAX_SIGNING_MESSAGE_LENGTH).nullable(),
  /** When the request (and so every link to it) expires. */
  expiresAt: ZIsoTimestamp,
  requestedAt: ZIsoTimestamp,
  /** True when the client asked to resend the email (the earlier links stop working). */
  resend: z.boolean(),
});
export type TSigningRequestedEvent = z.infer<typeof ZSigningRequestedEvent>;

export const SigningRequested = defineEvent('events.signing.requested', ZSigningRequestedEvent, {
  durable: true,
});

/**
 * A reminder is due for a request still pending. document-store decides when (it owns the request's
 * state and schedule: by default 3 days after sending, then every 3 days, at most 3, never after
 * expiry; reminders missed while it was down collapse into one). The mailer emails a fresh link that is
 * added to the request's links (earlier ones keep working while the request is pending).
 */
export const ZSigningReminderDueEvent = ZSigningEventBase.extend({
  subject: z.string().min(1).max(MAX_SIGNING_SUBJECT_LENGTH),
  message: z.string().max(MAX_SIGNING_MESSAGE_LENGTH).nullable(),
  expiresAt: ZIsoTimestamp,
  /** 1 for the first reminder. */
  reminderNumber: z.number().int().min(1).max(10),
});
export type TSigningReminderDueEvent = z.infer<typeof ZSigningReminderDueEvent>;

export const SigningReminderDue = defineEvent('events.signing.reminder-due', ZSigningReminderDueEvent, {
  durable: true,
});

/**
 * The recipient signed: the signed PDF is durable and recorded. The mailer sends it to the sender and
 * to the recipient (attached up to its size limit, otherwise as a time-limited download link).
 */
export const ZSigningCompletedEvent = ZSigningEventBase.extend({
  signedAt: ZIsoTimestamp,
  /** `sha256:` of the signed PDF's bytes, as in the document record. */
  fileHash: ZFileHash,
  /** Object key of the signed PDF (`signed/<accountId>/<auditId>.pdf`). */
  objectKey: z.string().min(1),
  /** Size of the signed PDF in bytes. */
  size: z.number().int().positive(),
});
export type TSigningCompletedEvent = z.infer<typeof ZSigningCompletedEvent>;

export const SigningCompleted = defineEvent('events.signing.completed', ZSigningCompletedEvent, {
  durable: true,
});

/** The recipient declined, with a reason (required). The mailer tells the sender. */
export const ZSigningDeclinedEvent = ZSigningEventBase.extend({
  declinedAt: ZIsoTimestamp,
  /** The recipient's own words: plain text, escaped wherever it is shown. */
  reason: z.string().min(1).max(MAX_DECLINE_REASON_LENGTH),
});
export type TSigningDeclinedEvent = z.infer<typeof ZSigningDeclinedEvent>;

export const SigningDeclined = defineEvent('events.signing.declined', ZSigningDeclinedEvent, {
  durable: true,
});

/** The request expired unsigned. The mailer tells the sender. */
export const ZSigningExpiredEvent = ZSigningEventBase.extend({ expiredAt: ZIsoTimestamp });
export type TSigningExpiredEvent = z.infer<typeof ZSigningExpiredEvent>;

export const SigningExpired = defineEvent('events.signing.expired', ZSigningExpiredEvent, {
  durable: true,
});

/** The sender canceled a pending request. The mailer tells the recipient that the link is void. */
export const ZSigningCanceledEvent = ZSigningEventBase.extend({ canceledAt: ZIsoTimestamp });
export type TSigningCanceledEvent = z.infer<typeof ZSigningCanceledEvent>;

export const SigningCanceled = defineEvent('events.signing.canceled', ZSigningCanceledEvent, {
  durable: true,
});

/**
 * Attach a signing link to a pending request: document-store stores only `tokenHash` (the mailer keeps
 * the token for the email alone). `replace` revokes every earlier link of the request (the first email
 * and resends); `add` keeps them (reminders). Answers the request's current expiry, which the email
 * states. `not_found` for an unknown `sendId`; `conflict` when the request is no longer pending
 * (signed, declined, canceled or expired), in which case the mailer sends nothing.
 */
export const SigningAttachLink = defineRequest(
  'signing.attach-link',
  z.object({
    sendId: ZSendId,
    /** The event the email answers (for document-store's audit log: "emailed"). */
    eventId: z.uuid(),
    tokenHash: ZSigningTokenHash,
    mode: z.enum(['replace', 'add']),
  }),
  z.object({ sendId: ZSendId, expiresAt: ZIsoTimestamp }),
);
