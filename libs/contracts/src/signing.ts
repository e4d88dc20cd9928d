import { z } from 'zod';
import { defineEvent, defineRequest } from './define';
import { ZAuditId, ZFileHash, ZIsoTimestamp, ZPosition } from './common';
import { ZIdempotencyKey } from './document';
import {
  MAX_DECLINE_REASON_LENGTH,
  MAX_SIGNING_MESSAGE_LENGTH,
  MAX_SIGNING_SUBJECT_LENGTH,
} from './constants';

export { MAX_DECLINE_REASON_LENGTH, MAX_SIGNING_MESSAGE_LENGTH, MAX_SIGNING_SUBJECT_LENGTH };

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

/** The states of a signing request: `pending` until it ends in one of the four final states. */
export const ZSigningStatus = z.enum(['pending', 'signed', 'declined', 'canceled', 'expired']);
export type TSigningStatus = z.infer<typeof ZSigningStatus>;

/** Shortest and longest life of a request (and so of its links), in days; the default is 30. */
export const MIN_SIGNING_EXPIRY_DAYS = 1;
export const MAX_SIGNING_EXPIRY_DAYS = 90;
export const DEFAULT_SIGNING_EXPIRY_DAYS = 30;

const ZSha256HexDigest = z.string().regex(/^[0-9a-f]{64}$/);

/**
 * The recipient's browser reported the document shown (never a plain GET of the link). Published on the
 * first view only (later views are logged in the request's audit trail, not announced). The mailer
 * sends nothing on it.
 */
export const ZSigningViewedEvent = ZSigningEventBase.extend({ viewedAt: ZIsoTimestamp });
export type TSigningViewedEvent = z.infer<typeof ZSigningViewedEvent>;

export const SigningViewed = defineEvent('events.signing.viewed', ZSigningViewedEvent, { durable: true });

/** What `signing.create` (and a replay of it) answers: the public face of the request. */
export const ZSigningRequestCreated = z.object({
  sendId: ZSendId,
  auditId: ZAuditId,
  recipientEmail: z.email(),
  sentAt: ZIsoTimestamp,
  /** `pending` on creation; a replay answers the request's current status. */
  status: ZSigningStatus,
  expiresAt: ZIsoTimestamp,
  /**
   * True when an earlier request with the same Idempotency-Key made it (nothing was created or
   * published now; the caller's new copy of the original is not used).
   */
  replayed: z.boolean().optional(),
});
export type TSigningRequestCreated = z.infer<typeof ZSigningRequestCreated>;

/**
 * Create a signing request: reserves its `auditId` (the signed document will carry it), stores what the
 * emails need, and publishes `events.signing.requested` through the outbox in the same transaction.
 * `objectKey` is where the gateway put the original, under a prefix the bucket's lifecycle does not
 * expire (e.g. `pending/<accountId>/<uuid>.pdf`); document-store only stores the key. `idempotency`: a replay with
 * the same key and request hash answers the same request and publishes nothing; the same key with
 * another hash is `conflict` (field `Idempotency-Key`).
 */
export const SigningCreate = defineRequest(
  'signing.create',
  z.object({
    accountId: z.uuid(),
    /** The sending account's email (from the principal): where sender notifications go. */
    senderEmail: z.email(),
    recipientEmail: z.email(),
    recipientName: z.string().trim().min(1).max(200),
    /** One line; default `Please sign: <fileName>` (cut to the longest subject allowed). */
    subject: z
      .string()
      .min(1)
      .max(MAX_SIGNING_SUBJECT_LENGTH)
      .regex(/^[^\r\n]*$/, 'subject: must be one line')
      .optional(),
    message: z.string().max(MAX_SIGNING_MESSAGE_LENGTH).nullish(),
    fileName: z.string().min(1).max(255),
    /** Object key of the original PDF, kept until the request ends. */
    objectKey: z.string().min(1).max(1024),
    positions: z.array(ZPosition).min(1).max(50),
    /** Pages of the original, when the gateway knows them (it validates positions against them). */
    pageCount: z.number().int().positive().optional(),
    expiresInDays: z
      .number()
      .int()
      .min(MIN_SIGNING_EXPIRY_DAYS)
      .max(MAX_SIGNING_EXPIRY_DAYS)
      .default(DEFAULT_SIGNING_EXPIRY_DAYS),
    idempotency: z.object({ key: ZIdempotencyKey, requestHash: ZSha256HexDigest }).optional(),
  }),
  ZSigningRequestCreated,
);

/**
 * What the public signing page needs, found by the SHA-256 of the link's token. `not_found` for an
 * unknown or revoked (replaced) link. A link of a request that is no longer pending is found, with its
 * final `status` (the page answers 410); a pending request past `expiresAt` reads as `expired` even
 * before the sweep has marked it.
 */
export const SigningFindByToken = defineRequest(
  'signing.find-by-token',
  z.object({ tokenHash: ZSigningTokenHash }),
  z.object({
    sendId: ZSendId,
    auditId: ZAuditId,
    accountId: z.uuid(),
    status: ZSigningStatus,
    recipientName: z.string(),
    recipientEmail: z.string(),
    senderEmail: z.string(),
    /** The sender's message, as the request to sign carried it (null without one; absent from an older store). */
    message: z.string().nullable().default(null),
    fileName: z.string(),
    positions: z.array(ZPosition),
    /** The original PDF (under `pending/`), to render and to sign. */
    objectKey: z.string(),
    pageCount: z.number().int().positive().nullable(),
    expiresAt: ZIsoTimestamp,
    viewedAt: ZIsoTimestamp.nullable(),
  }),
);

/**
 * The recipient's browser has shown the document (a POST from the page, never the GET of the link).
 * Sets `viewedAt` the first time and keeps it; every view is logged in the request's audit trail with
 * its IP and user agent; the first publishes `events.signing.viewed`. `not_found` for an unknown or
 * revoked link, `conflict` when the request is no longer pending or has expired.
 */
export const SigningRecordView = defineRequest(
  'signing.record-view',
  z.object({ tokenHash: ZSigningTokenHash, ipAddress: z.string().max(100), userAgent: z.string().max(1000) }),
  z.object({ sendId: ZSendId, viewedAt: ZIsoTimestamp, firstView: z.boolean() }),
);

/**
 * The recipient declines, with a reason (required, 1-1,000 characters): the request becomes
 * `declined`, its links die, `events.signing.declined` carries the reason. `not_found` for an unknown
 * or revoked link, `conflict` when no longer pending or expired.
 */
export const SigningDecline = defineRequest(
  'signing.decline',
  z.object({
    tokenHash: ZSigningTokenHash,
    reason: z.string().trim().min(1, 'reason: required').max(MAX_DECLINE_REASON_LENGTH),
    ipAddress: z.string().max(100),
    userAgent: z.string().max(1000),
  }),
  z.object({ sendId: ZSendId, status: z.literal('declined'), declinedAt: ZIsoTimestamp }),
);

/**
 * The sender cancels a pending request: `canceled`, links dead, `events.signing.canceled`.
 * `not_found` for another account's or an unknown request, `conflict` when no longer pending.
 */
export const SigningCancel = defineRequest(
  'signing.cancel',
  z.object({ accountId: z.uuid(), sendId: ZSendId }),
  z.object({ sendId: ZSendId, status: z.literal('canceled'), canceledAt: ZIsoTimestamp }),
);

/**
 * The sender asks to email the link again: publishes `events.signing.requested` with `resend: true`
 * (the mailer makes a new link that replaces the earlier ones). The expiry and the reminder schedule
 * do not change. `not_found` as for cancel, `conflict` when no longer pending or expired.
 */
export const SigningResend = defineRequest(
  'signing.resend',
  z.object({ accountId: z.uuid(), sendId: ZSendId }),
  z.object({ sendId: ZSendId, status: z.literal('pending'), expiresAt: ZIsoTimestamp }),
);

/**
 * A request's status, exactly the spec's fields per state. `id` is the audit ID or the send ID
 * (`send_…`). `not_found` for an unknown ID or another account's. A pending request past its expiry
 * answers `expired` (with `expiredAt` = its `expiresAt`) even before the sweep has marked it.
 */
export const ZSigningStatusReply = z.discriminatedUnion('status', [
  z.object({
    auditId: ZAuditId,
    status: z.literal('pending'),
    signerName: z.string(),
    signerEmail: z.string(),
    viewedAt: ZIsoTimestamp.nullable(),
  }),
  z.object({
    auditId: ZAuditId,
    status: z.literal('signed'),
    signerName: z.string(),
    signerEmail: z.string(),
    signedAt: ZIsoTimestamp,
    fileHash: ZFileHash,
  }),
  z.object({
    auditId: ZAuditId,
    status: z.literal('declined'),
    declinedAt: ZIsoTimestamp,
    declineReason: z.string(),
  }),
  z.object({ auditId: ZAuditId, status: z.literal('expired'), expiredAt: ZIsoTimestamp }),
  z.object({ auditId: ZAuditId, status: z.literal('canceled'), canceledAt: ZIsoTimestamp }),
]);
export type TSigningStatusReply = z.infer<typeof ZSigningStatusReply>;

export const SigningStatus = defineRequest(
  'signing.status',
  z.object({ accountId: z.uuid(), id: z.string().min(1).max(100) }),
  ZSigningStatusReply,
);

/** A signing request as its sender sees it in a list (the dashboard's sent requests). */
export const ZSentRequest = z.object({
  sendId: ZSendId,
  auditId: ZAuditId,
  fileName: z.string(),
  subject: z.string(),
  recipientName: z.string(),
  recipientEmail: z.string(),
  /** As `signing.status` says it: a pending request past its expiry is `expired`. */
  status: z.enum(['pending', 'signed', 'declined', 'canceled', 'expired']),
  sentAt: ZIsoTimestamp,
  expiresAt: ZIsoTimestamp,
  viewedAt: ZIsoTimestamp.nullable(),
  /** When it ended (signed, declined, canceled or expired); null while pending. */
  endedAt: ZIsoTimestamp.nullable(),
  declineReason: z.string().nullable(),
});
export type TSentRequest = z.infer<typeof ZSentRequest>;

/** An account's signing requests, newest first, a page at a time (`total` is exact). */
export const SigningList = defineRequest(
  'signing.list',
  z.object({
    accountId: z.uuid(),
    page: z.number().int().min(1),
    limit: z.number().int().min(1).max(100),
  }),
  z.object({
    requests: z.array(ZSentRequest),
    total: z.number().int(),
    page: z.number().int(),
    pages: z.number().int(),
  }),
);

/**
 * Before running the signer for a submit from the signing page: claim the request for `SIGNING_CLAIM_MS`
 * (document-store's setting, 2 minutes by default; longer than the gateway's sign timeout). A second
 * submit while a claim holds is `conflict` before anything is signed, so two signers never write the
 * object of the reserved audit ID. `not_found` for an unknown or revoked link, `conflict` when the
 * request is no longer pending, has expired, or is claimed. The claim ends with the record (signed),
 * with `signing.release` (the sign workflow failed), or by itself at `claimedUntil`.
 */
export const SigningClaim = defineRequest(
  'signing.claim',
  z.object({ tokenHash: ZSigningTokenHash }),
  z.object({ sendId: ZSendId, auditId: ZAuditId, claimedUntil: ZIsoTimestamp }),
);

/** End a claim after a failed sign workflow, so that the recipient can try again at once. */
export const SigningRelease = defineRequest(
  'signing.release',
  z.object({ tokenHash: ZSigningTokenHash }),
  z.object({ sendId: ZSendId }),
);
