import { z } from 'zod';
import { defineEvent, defineRequest } from './define';
import { ZAuditEvent, ZAuditId, ZFileHash, ZIsoTimestamp } from './common';
import { ZIdempotencyKey } from './document';
import { ZSignature } from './pdf';
import { ZSendId } from './signing';
import {
  MAX_DECLINE_REASON_LENGTH,
  MAX_SIGNING_MESSAGE_LENGTH,
  MAX_SIGNING_SUBJECT_LENGTH,
} from './constants';

/**
 * Envelopes: one document, several recipients (signers, approvers, people in copy), acting in groups in
 * the order the sender set. document-store owns the envelope, its recipients, their links and its story;
 * the gateway runs each signer's step (a PAdES revision appended by pdf-signer as an incremental update);
 * the mailer emails each recipient when their group's turn comes; document-store completes the envelope
 * (certificate of completion and the service's seal, appended by pdf-signer) once every signer and
 * approver has acted. docs/envelopes.md tells the whole flow, the states and the choices.
 *
 * As for send: a link's token never crosses the bus in plain text; only its SHA-256 does.
 */

/** `env_` + 24 base62 characters: the public id of an envelope. */
export const ZEnvelopeId = z.string().regex(/^env_[A-Za-z0-9]{16,40}$/, 'not an envelope ID');
export type TEnvelopeId = z.infer<typeof ZEnvelopeId>;

/** `rcp_` + 24 base62 characters: the public id of a recipient of an envelope. */
export const ZRecipientId = z.string().regex(/^rcp_[A-Za-z0-9]{16,40}$/, 'not a recipient ID');
export type TRecipientId = z.infer<typeof ZRecipientId>;

const ZTokenHash = z.string().regex(/^[0-9a-f]{64}$/, 'not a SHA-256 hex digest');
const ZSha256HexDigest = z.string().regex(/^[0-9a-f]{64}$/);

export const MAX_ENVELOPE_RECIPIENTS = 50;
export const MAX_ENVELOPE_FIELDS = 200;
export const MAX_FIELD_LABEL_LENGTH = 100;
export const MAX_TEXT_FIELD_LENGTH = 500;
/** Largest order number a recipient may have (groups act in ascending order). */
export const MAX_RECIPIENT_ORDER = 100;

/**
 * `signer`: signs (a digital signature of their own) and fills their fields; `approver`: approves or
 * declines, no signature; `cc`: acts on nothing, receives the completed document.
 */
export const ZRecipientRole = z.enum(['signer', 'approver', 'cc']);
export type TRecipientRole = z.infer<typeof ZRecipientRole>;

export const ZFieldType = z.enum(['signature', 'initials', 'date', 'name', 'email', 'text', 'checkbox']);
export type TFieldType = z.infer<typeof ZFieldType>;

const percent = (name: string, min: number, max: number) =>
  z
    .number({ error: `${name} must be a number from ${min} to ${max}` })
    .min(min, `${name} must be a number from ${min} to ${max}`)
    .max(max, `${name} must be a number from ${min} to ${max}`);

/**
 * A field a signer fills, placed as the sign endpoint places signatures: percentages of the page as a
 * person sees it, origin at its top-left corner, `x`/`y` the box's top-left corner. `width` is 10-60 for
 * signature fields (the sign endpoint's rule) and 2-60 for the others; `height` (percent of the page's
 * height) defaults to a third of the width for signature and initials (the shape of a drawn
 * signature), to the width for a checkbox (a square), and to 3% of the page height (one line) for the
 * rest. The box must lie inside the page (checked against the document's page sizes).
 */
export const ZEnvelopeField = z
  .object({
    type: ZFieldType,
    page: z
      .number()
      .int('page must be a zero-based page index')
      .min(0, 'page must be a zero-based page index'),
    x: percent('x', 0, 100),
    y: percent('y', 0, 100),
    width: percent('width', 2, 60),
    height: percent('height', 1, 50).optional(),
    required: z.boolean().default(true),
    label: z.string().trim().min(1).max(MAX_FIELD_LABEL_LENGTH).optional(),
    /** A `text` field's prefilled value, which the signer may change. */
    value: z.string().max(MAX_TEXT_FIELD_LENGTH).optional(),
  })
  .superRefine((field, ctx) => {
    if (field.type === 'signature' && field.width < 10) {
      ctx.addIssue({
        code: 'custom',
        path: ['width'],
        message: 'width must be a number from 10 to 60 for a signature field',
      });
    }
    if (field.value !== undefined && field.type !== 'text') {
      ctx.addIssue({ code: 'custom', path: ['value'], message: 'value: only a text field can be prefilled' });
    }
  });
export type TEnvelopeField = z.infer<typeof ZEnvelopeField>;

/** A recipient as the sender gives it (`POST /api/v1/envelopes`, `recipients`). */
export const ZEnvelopeRecipientInput = z.object({
  name: z.string().trim().min(1, 'name: required').max(200),
  email: z.email('email: not an email address').max(254),
  role: ZRecipientRole,
  /** Recipients with the same number form a group acting in parallel; groups act in ascending order. */
  order: z
    .number()
    .int('order must be an integer from 1')
    .min(1, 'order must be an integer from 1')
    .max(MAX_RECIPIENT_ORDER),
  /** A one-time code, emailed on its own at the recipient's turn, must be entered before the document is shown. */
  requireEmailCode: z.boolean().default(false),
  /** No email: the sender's site shows the signing page in an iframe (`signing-url`). */
  embedded: z.boolean().default(false),
  /** A signer's fields (at least one signature field); none for approvers and people in copy. */
  fields: z.array(ZEnvelopeField).max(MAX_ENVELOPE_FIELDS).default([]),
});
export type TEnvelopeRecipientInput = z.infer<typeof ZEnvelopeRecipientInput>;

/** An envelope's states: `pending` until every signer and approver acted, or it ended otherwise. */
export const ZEnvelopeStatus = z.enum(['pending', 'completed', 'declined', 'canceled', 'expired']);
export type TEnvelopeStatus = z.infer<typeof ZEnvelopeStatus>;

/**
 * A recipient's states: `waiting` (their group's turn has not come; no link exists), `notified` (their
 * turn came: the email with their link is on its way, or for an embedded recipient the signing URL can
 * be asked for), `viewed`, then `signed`, `approved` or `declined`. People in copy stay `waiting` until
 * the envelope completes, then `notified` (the completed document is on its way to them).
 */
export const ZRecipientStatus = z.enum(['waiting', 'notified', 'viewed', 'signed', 'approved', 'declined']);
export type TRecipientStatus = z.infer<typeof ZRecipientStatus>;

/** A recipient as the sender sees it. */
export const ZEnvelopeRecipient = z.object({
  recipientId: ZRecipientId,
  name: z.string(),
  email: z.string(),
  role: ZRecipientRole,
  order: z.number().int(),
  status: ZRecipientStatus,
  requireEmailCode: z.boolean(),
  embedded: z.boolean(),
  fields: z.array(ZEnvelopeField),
  notifiedAt: ZIsoTimestamp.nullable(),
  viewedAt: ZIsoTimestamp.nullable(),
  /** When they signed, approved or declined. */
  actedAt: ZIsoTimestamp.nullable(),
  declineReason: z.string().nullable(),
  /**
   * The people who held this place before and were replaced by the sender (oldest first): the
   * recipient keeps their id, role, order and fields. Absent or empty when nobody was replaced.
   */
  replaces: z.array(z.object({ name: z.string(), email: z.string(), replacedAt: ZIsoTimestamp })).optional(),
});
export type TEnvelopeRecipient = z.infer<typeof ZEnvelopeRecipient>;

/** An envelope as the sender sees it (`GET /api/v1/envelopes/{id}`, and the create's 201). */
export const ZEnvelope = z.object({
  envelopeId: ZEnvelopeId,
  /** The audit ID the completed document carries (reserved at creation). */
  auditId: ZAuditId,
  status: ZEnvelopeStatus,
  subject: z.string(),
  message: z.string().nullable(),
  fileName: z.string(),
  pageCount: z.number().int().positive(),
  createdAt: ZIsoTimestamp,
  expiresAt: ZIsoTimestamp,
  /** The group acting now (null once the envelope has ended). */
  currentOrder: z.number().int().nullable(),
  /** Signed revisions so far (0 before the first signer signs). */
  revision: z.number().int().nonnegative(),
  recipients: z.array(ZEnvelopeRecipient),
  completedAt: ZIsoTimestamp.nullable(),
  declinedAt: ZIsoTimestamp.nullable(),
  declineReason: z.string().nullable(),
  /**
   * Present when the envelope is a send's (`POST /api/v1/send` makes a one-signer envelope): its
   * recipient signs through the send's link, and the send's status, emails and `signing.*` events
   * apply. Cancel and resend act on the send; replace and signing-url answer 409.
   */
  sendId: ZSendId.optional(),
  canceledAt: ZIsoTimestamp.nullable(),
  expiredAt: ZIsoTimestamp.nullable(),
  /** `sha256:` of the completed document; null until completed. */
  fileHash: ZFileHash.nullable(),
  /** True when an earlier request with the same Idempotency-Key made it (create only). */
  replayed: z.boolean().optional(),
});
export type TEnvelope = z.infer<typeof ZEnvelope>;

export const MIN_ENVELOPE_EXPIRY_DAYS = 1;
export const MAX_ENVELOPE_EXPIRY_DAYS = 90;
export const DEFAULT_ENVELOPE_EXPIRY_DAYS = 30;

/** Reminders to a recipient whose turn has come and who has not acted: after `firstAfterDays`, then every `everyDays`, at most `max`. */
export const ZReminderSettings = z.object({
  firstAfterDays: z.number().int().min(1).max(60).default(3),
  everyDays: z.number().int().min(1).max(60).default(3),
  max: z.number().int().min(0).max(10).default(3),
});

/**
 * Create an envelope: document-store stores it, reserves its audit ID, opens the first group's turn
 * (publishing `events.envelope.recipient-turn` for each of its signers and approvers that is not
 * embedded, and `events.envelope.sent`) in one transaction. The gateway has validated everything
 * against the document (pages, boxes, counts, distinct emails per group, a signature field per
 * signer); document-store checks the same rules that need no document and refuses with
 * `invalid_argument` naming `recipients.<i>[.fields.<j>]`. `objectKey`: the original, under `pending/`.
 * Idempotency as for `signing.create`.
 */
export const EnvelopeCreate = defineRequest(
  'envelope.create',
  z.object({
    accountId: z.uuid(),
    senderEmail: z.email(),
    subject: z
      .string()
      .min(1)
      .max(MAX_SIGNING_SUBJECT_LENGTH)
      .regex(/^[^\r\n]*$/, 'subject: must be one line')
      .optional(),
    message: z.string().max(MAX_SIGNING_MESSAGE_LENGTH).nullish(),
    fileName: z.string().min(1).max(255),
    objectKey: z.string().min(1).max(1024),
    /** `sha256:` of the original upload (the completed document's `originalHash`). */
    originalHash: ZFileHash,
    pageCount: z.number().int().positive(),
    expiresInDays: z
      .number()
      .int()
      .min(MIN_ENVELOPE_EXPIRY_DAYS)
      .max(MAX_ENVELOPE_EXPIRY_DAYS)
      .default(DEFAULT_ENVELOPE_EXPIRY_DAYS),
    reminders: ZReminderSettings.optional(),
    recipients: z.array(ZEnvelopeRecipientInput).min(1).max(MAX_ENVELOPE_RECIPIENTS),
    idempotency: z.object({ key: ZIdempotencyKey, requestHash: ZSha256HexDigest }).optional(),
  }),
  ZEnvelope,
);

/** One envelope of the account. `not_found` for another account's or an unknown one. A pending envelope past its expiry reads as `expired`. */
export const EnvelopeGet = defineRequest(
  'envelope.get',
  z.object({ accountId: z.uuid(), envelopeId: ZEnvelopeId }),
  ZEnvelope,
);

/** The account's envelopes, newest first, keyset paged (`cursor` from `nextCursor`). */
export const EnvelopeList = defineRequest(
  'envelope.list',
  z.object({
    accountId: z.uuid(),
    status: ZEnvelopeStatus.optional(),
    limit: z.number().int().min(1).max(100),
    cursor: z.string().min(1).max(500).optional(),
  }),
  z.object({ envelopes: z.array(ZEnvelope), nextCursor: z.string().nullable() }),
);

/** Cancel a pending envelope: `canceled`, every link dead, `events.envelope.canceled`. `conflict` when no longer pending. */
export const EnvelopeCancel = defineRequest(
  'envelope.cancel',
  z.object({ accountId: z.uuid(), envelopeId: ZEnvelopeId }),
  ZEnvelope,
);

/**
 * Send a recipient's email again: `events.envelope.recipient-turn` with reason `resend` (the mailer's
 * new link replaces their earlier ones) and `resent` in the story. Answers the envelope. `conflict`
 * unless the envelope is pending (not being completed), the recipient is a signer or approver whose
 * group is acting, has not acted and is not embedded; `not_found` for an unknown envelope (or another
 * account's) or a recipient not in it.
 */
export const EnvelopeResendRecipient = defineRequest(
  'envelope.resend-recipient',
  z.object({ accountId: z.uuid(), envelopeId: ZEnvelopeId, recipientId: ZRecipientId }),
  ZEnvelope,
);

/**
 * Put another person in the place of a recipient who has not acted: in one transaction the replaced
 * person's links are deleted (they answer `not_found` from then on), the recipient takes the new name
 * and email (id, role, order, fields and settings kept; `viewed` and reminders start again), the story
 * records `replaced` with both people (the certificate of completion and `replaces` show it), and when
 * the recipient's turn has come the new person is `notified` at once (`events.envelope.recipient-turn`,
 * reason `turn`, unless embedded). `conflict` when the recipient acted or the envelope is not pending
 * (or is being completed); `invalid_argument` field `email` when another recipient of the same group
 * has that email; `not_found` as for resend.
 */
export const EnvelopeReplaceRecipient = defineRequest(
  'envelope.replace-recipient',
  z.object({
    accountId: z.uuid(),
    envelopeId: ZEnvelopeId,
    recipientId: ZRecipientId,
    name: ZEnvelopeRecipientInput.shape.name,
    email: ZEnvelopeRecipientInput.shape.email,
  }),
  ZEnvelope,
);

/**
 * Where the document stands, for `GET /api/v1/envelopes/{id}/document`: the completed document once
 * completed (`complete: true`, `objectKey` under `signed/`), otherwise the latest signed revision (or the
 * original before the first signature), which the gateway serves only as a copy marked on every page as
 * not yet complete.
 */
export const EnvelopeDocument = defineRequest(
  'envelope.document',
  z.object({ accountId: z.uuid(), envelopeId: ZEnvelopeId }),
  z.object({
    envelopeId: ZEnvelopeId,
    status: ZEnvelopeStatus,
    complete: z.boolean(),
    objectKey: z.string(),
    fileName: z.string(),
    revision: z.number().int().nonnegative(),
    signersDone: z.number().int().nonnegative(),
    signersTotal: z.number().int().nonnegative(),
  }),
);

/**
 * Attach a link to a recipient whose turn has come: only `tokenHash` is stored. `replace` (the turn's
 * email, a resend) revokes the recipient's earlier links; `add` (a reminder) keeps them; `embedded` (the
 * gateway's `signing-url` for an embedded recipient) replaces them with a link that works once and for 5
 * minutes. `conflict` unless the envelope is pending, the recipient's group is acting and the recipient
 * has not acted; `not_found` for an unknown recipient.
 */
export const EnvelopeAttachLink = defineRequest(
  'envelope.attach-link',
  z.object({
    recipientId: ZRecipientId,
    /** The event the email answers (absent for an embedded link). */
    eventId: z.uuid().optional(),
    tokenHash: ZTokenHash,
    mode: z.enum(['replace', 'add', 'embedded']),
    /**
     * A `requireEmailCode` recipient's one-time code for this link, as the SHA-256 (hex) of
     * `<tokenHash>:<code>`: the code itself is only in its email. It works for `EMAIL_CODE_TTL_MS` from now.
     */
    codeHash: ZTokenHash.optional(),
  }),
  z.object({
    envelopeId: ZEnvelopeId,
    recipientId: ZRecipientId,
    expiresAt: ZIsoTimestamp,
    /** When the code given with `codeHash` stops working. */
    codeExpiresAt: ZIsoTimestamp.optional(),
  }),
);

/** What a recipient's page shows of the others: names, roles, groups and progress, never emails or fields. */
export const ZOtherRecipient = z.object({
  name: z.string(),
  role: ZRecipientRole,
  order: z.number().int(),
  status: ZRecipientStatus,
});

/**
 * What the signing page needs, found by the SHA-256 of a link's token. `not_found` for an unknown or
 * revoked link. A link of an envelope that has ended, or of a recipient who has acted, is found with
 * those statuses (the page answers 410). A pending envelope past its expiry reads as `expired`.
 */
export const EnvelopeFindByToken = defineRequest(
  'envelope.find-by-token',
  z.object({ tokenHash: ZTokenHash }),
  z.object({
    envelopeId: ZEnvelopeId,
    auditId: ZAuditId,
    accountId: z.uuid(),
    envelopeStatus: ZEnvelopeStatus,
    senderEmail: z.string(),
    subject: z.string(),
    message: z.string().nullable(),
    fileName: z.string(),
    pageCount: z.number().int().positive(),
    expiresAt: ZIsoTimestamp,
    /** The document as it stands now (the original, or the latest signed revision). */
    objectKey: z.string(),
    revision: z.number().int().nonnegative(),
    recipient: ZEnvelopeRecipient,
    others: z.array(ZOtherRecipient),
    /** The link is an embedded signing URL's (`attach-link` mode `embedded`). */
    embedded: z.boolean(),
    /**
     * An embedded link's first view (`envelope.record-view`), which used it up: a page loaded again
     * through it is refused. Null before; absent for other links.
     */
    linkUsedAt: ZIsoTimestamp.nullable().optional(),
    /**
     * The recipient must enter the one-time code emailed to them (`envelope.verify-code`) before this
     * link shows the document or acts: true for a `requireEmailCode` recipient's emailed link until its
     * code is verified.
     */
    codeRequired: z.boolean().default(false),
  }),
);

/** How long a one-time email code works after it is issued. */
export const EMAIL_CODE_TTL_MS = 10 * 60_000;
/** Wrong tries a code allows; then it is dead and a new one must be asked for. */
export const EMAIL_CODE_MAX_ATTEMPTS = 5;
/** New codes a link may ask for in `EMAIL_CODE_REQUEST_WINDOW_MS`. */
export const EMAIL_CODE_MAX_REQUESTS = 5;
export const EMAIL_CODE_REQUEST_WINDOW_MS = 60 * 60_000;
/** A one-time email code: 6 digits. */
export const ZEmailCode = z.string().regex(/^[0-9]{6}$/, 'code: 6 digits');

/**
 * A `requireEmailCode` recipient enters the code emailed to them. `verified` (the link is unlocked for
 * good; the story and the certificate say `code-verified` with time, IP and user agent), `wrong` (with
 * the tries left), `expired` (older than `EMAIL_CODE_TTL_MS`, or none was issued: ask for a new one) or
 * `locked` (`EMAIL_CODE_MAX_ATTEMPTS` wrong tries: ask for a new one). `conflict` when the recipient
 * cannot act or the link needs no code; `not_found` for an unknown link.
 */
export const EnvelopeVerifyCode = defineRequest(
  'envelope.verify-code',
  z.object({
    tokenHash: ZTokenHash,
    code: ZEmailCode,
    ipAddress: z.string().max(100),
    userAgent: z.string().max(1000),
  }),
  z.discriminatedUnion('outcome', [
    z.object({ outcome: z.literal('verified'), verifiedAt: ZIsoTimestamp }),
    z.object({ outcome: z.literal('wrong'), attemptsLeft: z.number().int().positive() }),
    z.object({ outcome: z.literal('expired') }),
    z.object({ outcome: z.literal('locked') }),
  ]),
);

/**
 * A `requireEmailCode` recipient asks for a new code: publishes `events.envelope.code-requested` (the
 * mailer makes the code, `envelope.set-code`, and emails it). At most `EMAIL_CODE_MAX_REQUESTS` per link
 * in `EMAIL_CODE_REQUEST_WINDOW_MS` (`rate_limited`). `conflict` when the recipient cannot act or the
 * link needs no code (any more).
 */
export const EnvelopeRequestCode = defineRequest(
  'envelope.request-code',
  z.object({ tokenHash: ZTokenHash }),
  z.object({
    envelopeId: ZEnvelopeId,
    recipientId: ZRecipientId,
    requestsLeft: z.number().int().nonnegative(),
  }),
);

/**
 * The mailer's new code for a link (SHA-256 hex of `<tokenHash>:<code>`): replaces the link's code,
 * its tries start again, it works for `EMAIL_CODE_TTL_MS`. `conflict` when the recipient cannot act or
 * the link needs no code (any more); `not_found` for an unknown link.
 */
export const EnvelopeSetCode = defineRequest(
  'envelope.set-code',
  z.object({ tokenHash: ZTokenHash, codeHash: ZTokenHash, eventId: z.uuid() }),
  z.object({ envelopeId: ZEnvelopeId, recipientId: ZRecipientId, codeExpiresAt: ZIsoTimestamp }),
);

/**
 * The recipient's page has shown the document (a POST, never the link's GET). Sets `viewedAt` the
 * first time (status `viewed`), logs every view in the story with IP and user agent, and the first
 * publishes `events.envelope.recipient-viewed`. `conflict` when the recipient can no longer act.
 */
export const EnvelopeRecordView = defineRequest(
  'envelope.record-view',
  z.object({ tokenHash: ZTokenHash, ipAddress: z.string().max(100), userAgent: z.string().max(1000) }),
  z.object({
    envelopeId: ZEnvelopeId,
    recipientId: ZRecipientId,
    viewedAt: ZIsoTimestamp,
    firstView: z.boolean(),
  }),
);

/**
 * Before a signer's step: take the envelope's head (its latest revision) for `claimedUntil`. Signers of
 * one group may act at once; their revisions are appended one after the other, so one holds the head at
 * a time: `busy` tells the caller to try again shortly (the holder is signing; it ends with
 * `envelope.record-revision`, `envelope.release`, or by itself at the lease's end). `conflict` when the
 * recipient cannot act (not a signer, not their turn, acted, envelope ended); `not_found` for an unknown
 * or revoked link.
 */
export const EnvelopeClaim = defineRequest(
  'envelope.claim',
  z.object({ tokenHash: ZTokenHash }),
  z.discriminatedUnion('outcome', [
    z.object({
      outcome: z.literal('claimed'),
      envelopeId: ZEnvelopeId,
      recipientId: ZRecipientId,
      auditId: ZAuditId,
      accountId: z.uuid(),
      /** The revision to sign on top of (the original when `revision` is 0). */
      objectKey: z.string(),
      revision: z.number().int().nonnegative(),
      claimedUntil: ZIsoTimestamp,
    }),
    z.object({ outcome: z.literal('busy'), retryAfterMs: z.number().int().positive() }),
  ]),
);

/** End a claim after a failed step, so that the signer (or another of the group) can go on at once. */
export const EnvelopeRelease = defineRequest(
  'envelope.release',
  z.object({ tokenHash: ZTokenHash }),
  z.object({ envelopeId: ZEnvelopeId }),
);

/** What an acting recipient's step tells document-store, whatever it was. */
const ZActionBase = z.object({
  tokenHash: ZTokenHash,
  ipAddress: z.string().max(100),
  userAgent: z.string().max(1000),
});

/** What document-store answers to an act: the recipient's new state and where the envelope went. */
export const ZActionReply = z.object({
  envelopeId: ZEnvelopeId,
  recipientId: ZRecipientId,
  recipientStatus: ZRecipientStatus,
  actedAt: ZIsoTimestamp,
  envelopeStatus: ZEnvelopeStatus,
  /** The group acting now (the next one when this act finished a group; null when the envelope ended or is completing). */
  currentOrder: z.number().int().nullable(),
  /** True when every signer and approver has acted: the envelope is being completed (sealed). */
  completing: z.boolean(),
});
export type TActionReply = z.infer<typeof ZActionReply>;

/**
 * A signer's revision is stored (`objectKey`, appended on top of revision `revision`): in one
 * transaction the head moves to it (only from `revision`: `conflict` otherwise), the claim ends, the
 * recipient is `signed`, the story and `events.envelope.recipient-signed` record it; when the group is
 * done the next group's turn opens; when every signer and approver has acted the envelope is queued for
 * completion (`events.envelope.finalize-due`).
 */
export const EnvelopeRecordRevision = defineRequest(
  'envelope.record-revision',
  ZActionBase.extend({
    revision: z.number().int().nonnegative(),
    objectKey: z.string().min(1),
    fileHash: ZFileHash,
    size: z.number().int().positive(),
    signedAt: ZIsoTimestamp,
    /** What the signer's step did (from `pdf.sign-revision`), for the story. */
    events: z.array(ZAuditEvent),
  }),
  ZActionReply,
);

/** An approver approves: as `record-revision` without a document. `conflict` for a recipient who is not an approver. */
export const EnvelopeApprove = defineRequest('envelope.approve', ZActionBase, ZActionReply);

/**
 * A signer or approver declines, with a reason: the envelope is `declined`, every link dies (410),
 * `events.envelope.declined` tells the sender and those who already acted.
 */
export const EnvelopeDecline = defineRequest(
  'envelope.decline',
  ZActionBase.extend({
    reason: z.string().trim().min(1, 'reason: required').max(MAX_DECLINE_REASON_LENGTH),
  }),
  ZActionReply,
);

// ——— events (all durable, published through document-store's outbox; `eventId` is the outbox row's id) ———

const ZEnvelopeEventBase = z.object({
  eventId: z.uuid(),
  envelopeId: ZEnvelopeId,
  auditId: ZAuditId,
  accountId: z.uuid(),
  senderEmail: z.email(),
  subject: z.string(),
  message: z.string().nullable(),
  fileName: z.string(),
  occurredAt: ZIsoTimestamp,
});

const ZEventRecipient = z.object({
  recipientId: ZRecipientId,
  name: z.string(),
  email: z.string(),
  role: ZRecipientRole,
  order: z.number().int(),
});
export type TEventRecipient = z.infer<typeof ZEventRecipient>;

/** The envelope was created and its first group's turn opened. */
export const EnvelopeSent = defineEvent(
  'events.envelope.sent',
  ZEnvelopeEventBase.extend({ recipients: z.array(ZEventRecipient), expiresAt: ZIsoTimestamp }),
  { durable: true },
);

/**
 * A recipient's turn came (or a resend, or a reminder): the mailer makes a token, attaches its hash
 * (`envelope.attach-link`, `replace` for `turn`/`resend`, `add` for `reminder`) and emails the link; for
 * `requireEmailCode` recipients also the code, in its own email. Not published for embedded recipients
 * or people in copy.
 */
export const ZRecipientTurnEvent = ZEnvelopeEventBase.extend({
  recipient: ZEventRecipient,
  reason: z.enum(['turn', 'resend', 'reminder']),
  expiresAt: ZIsoTimestamp,
  /** The recipient must enter a one-time code: the mailer issues one with the link and emails it on its own. */
  requireEmailCode: z.boolean().optional(),
});
export type TRecipientTurnEvent = z.infer<typeof ZRecipientTurnEvent>;
export const EnvelopeRecipientTurn = defineEvent('events.envelope.recipient-turn', ZRecipientTurnEvent, {
  durable: true,
});

/**
 * A `requireEmailCode` recipient asked for a new code for their link (`tokenHash`, the SHA-256 of its
 * token; never the token): the mailer makes a code, stores its hash (`envelope.set-code`) and emails it.
 */
export const ZEnvelopeCodeRequestedEvent = ZEnvelopeEventBase.extend({
  recipient: ZEventRecipient,
  tokenHash: ZTokenHash,
  expiresAt: ZIsoTimestamp,
});
export type TEnvelopeCodeRequestedEvent = z.infer<typeof ZEnvelopeCodeRequestedEvent>;
export const EnvelopeCodeRequested = defineEvent(
  'events.envelope.code-requested',
  ZEnvelopeCodeRequestedEvent,
  { durable: true },
);

/** A recipient acted or was shown the document (webhooks: `recipient.viewed|signed|approved|declined`). */
export const ZRecipientActedEvent = ZEnvelopeEventBase.extend({
  recipient: ZEventRecipient,
  ipAddress: z.string().nullable(),
  userAgent: z.string().nullable(),
});
export const EnvelopeRecipientViewed = defineEvent('events.envelope.recipient-viewed', ZRecipientActedEvent, {
  durable: true,
});
export const EnvelopeRecipientSigned = defineEvent('events.envelope.recipient-signed', ZRecipientActedEvent, {
  durable: true,
});
export const EnvelopeRecipientApproved = defineEvent(
  'events.envelope.recipient-approved',
  ZRecipientActedEvent,
  { durable: true },
);

/** Internal (document-store to itself): every signer and approver acted; seal and record the document. */
export const ZEnvelopeFinalizeDueEvent = z.object({
  eventId: z.uuid(),
  envelopeId: ZEnvelopeId,
  accountId: z.uuid(),
});
export const EnvelopeFinalizeDue = defineEvent('events.envelope.finalize-due', ZEnvelopeFinalizeDueEvent, {
  durable: true,
});

/**
 * The envelope completed: the sealed document is recorded (in the document list, under `auditId`).
 * The mailer sends it to the sender and to every recipient, people in copy included. Published once.
 */
export const ZEnvelopeCompletedEvent = ZEnvelopeEventBase.extend({
  recipients: z.array(ZEventRecipient),
  fileHash: ZFileHash,
  objectKey: z.string(),
  size: z.number().int().positive(),
  completedAt: ZIsoTimestamp,
});
export type TEnvelopeCompletedEvent = z.infer<typeof ZEnvelopeCompletedEvent>;
export const EnvelopeCompleted = defineEvent('events.envelope.completed', ZEnvelopeCompletedEvent, {
  durable: true,
});

/**
 * A signer or approver declined: the envelope ended. The mailer tells the sender and everyone who
 * already signed or approved (`notify`), with the decliner's name and reason; no document is attached.
 */
export const ZEnvelopeDeclinedEvent = ZEnvelopeEventBase.extend({
  decliner: ZEventRecipient,
  reason: z.string(),
  notify: z.array(ZEventRecipient),
});
export type TEnvelopeDeclinedEvent = z.infer<typeof ZEnvelopeDeclinedEvent>;
export const EnvelopeDeclined = defineEvent('events.envelope.declined', ZEnvelopeDeclinedEvent, {
  durable: true,
});

/** The sender canceled: every recipient whose turn had come and who had not acted is told (`notify`). */
export const ZEnvelopeEndedEvent = ZEnvelopeEventBase.extend({ notify: z.array(ZEventRecipient) });
export type TEnvelopeEndedEvent = z.infer<typeof ZEnvelopeEndedEvent>;
export const EnvelopeCanceled = defineEvent('events.envelope.canceled', ZEnvelopeEndedEvent, {
  durable: true,
});
/** The envelope expired before every signer and approver acted: the sender is told, naming `notify` (who had not acted). */
export const EnvelopeExpired = defineEvent('events.envelope.expired', ZEnvelopeEndedEvent, { durable: true });

// ——— pdf-signer ———

/** A field's value as the signer filled it (signature and initials fields take the adopted images). */
export const ZFieldValue = z.union([z.string().max(MAX_TEXT_FIELD_LENGTH), z.boolean()]);

/**
 * A signer's revision: draw the signer's fields (signature and initials from the adopted signature and
 * initials, date/name/email/text as text inside their boxes, checkboxes ticked) and sign, as an
 * incremental update that leaves every earlier byte as it was: a PAdES signature of the signer's own
 * (B-B or B-T as configured), no audit page. Reads `sourceKey` (never deletes it), writes `targetKey`.
 */
export const PdfSignRevision = defineRequest(
  'pdf.sign-revision',
  z.object({
    accountId: z.uuid(),
    auditId: ZAuditId,
    sourceKey: z.string().min(1),
    targetKey: z.string().min(1),
    fileName: z.string().min(1),
    signer: z.object({
      name: z.string().min(1),
      email: z.string().min(1),
      ipAddress: z.string(),
      userAgent: z.string(),
    }),
    signature: ZSignature,
    /** The initials to draw in initials fields (required when the signer has one). */
    initials: ZSignature.optional(),
    /** The signer's fields, each with its value (absent for an optional field left empty). */
    fields: z
      .array(
        z.object({
          field: ZEnvelopeField,
          value: ZFieldValue.optional(),
          /**
           * The form field `pdf.prepare-envelope` made for it (`r<i>f<j>`: recipient i, field j). Absent:
           * found by its box on its page. A document without prepared fields gets the fields drawn instead.
           */
          fieldName: z
            .string()
            .regex(/^r\d+f\d+$/)
            .optional(),
        }),
      )
      .min(1)
      .max(MAX_ENVELOPE_FIELDS),
    /** Signature reason shown by readers, e.g. "Signed by Ann Lee (group 1 of 3)". */
    reason: z.string().max(200),
  }),
  z.object({
    objectKey: z.string(),
    fileHash: ZFileHash,
    size: z.number().int().positive(),
    signedAt: ZIsoTimestamp,
    pageCount: z.number().int().positive(),
    events: z.array(ZAuditEvent),
  }),
);

/** A recipient as the certificate of completion lists them, with what happened to them and when. */
export const ZCertificateRecipient = z.object({
  name: z.string(),
  email: z.string(),
  role: ZRecipientRole,
  order: z.number().int(),
  status: ZRecipientStatus,
  events: z.array(
    z.object({
      /** notified, code-verified, viewed, signed, approved, declined, replaced, sent-copy. */
      event: z.string(),
      at: ZIsoTimestamp,
      ipAddress: z.string().nullable(),
      userAgent: z.string().nullable(),
      /** What the event needs said besides its name, e.g. who replaced whom ("Replaced by Bob Roe <bob@example.com>"). */
      note: z.string().max(600).optional(),
    }),
  ),
});
export type TCertificateRecipient = z.infer<typeof ZCertificateRecipient>;

/**
 * Complete an envelope's document: append the certificate of completion (every recipient with role,
 * group and events) with the audit data, and the service's seal, as an incremental update on top of
 * the last signer's revision (every earlier signature still verifies). Writes
 * `signed/<accountId>/<auditId>.pdf`.
 */
export const PdfCompleteEnvelope = defineRequest(
  'pdf.complete-envelope',
  z.object({
    accountId: z.uuid(),
    auditId: ZAuditId,
    envelopeId: ZEnvelopeId,
    sourceKey: z.string().min(1),
    fileName: z.string().min(1),
    subject: z.string(),
    senderEmail: z.string(),
    createdAt: ZIsoTimestamp,
    originalHash: ZFileHash,
    recipients: z.array(ZCertificateRecipient).min(1),
  }),
  z.object({
    signedKey: z.string(),
    signedFileName: z.string(),
    fileHash: ZFileHash,
    size: z.number().int().positive(),
    pageCount: z.number().int().positive(),
    signedAt: ZIsoTimestamp,
    events: z.array(ZAuditEvent),
  }),
);

/**
 * A copy of a document in progress marked on every page as not yet complete ("Not complete: 1 of 3
 * signers have signed"), for `GET /api/v1/envelopes/{id}/document` before completion. A rewritten copy
 * for download, never a revision of the envelope. Reads `sourceKey`, writes `targetKey`.
 */
export const PdfMarkIncomplete = defineRequest(
  'pdf.mark-incomplete',
  z.object({ sourceKey: z.string().min(1), targetKey: z.string().min(1), note: z.string().min(1).max(200) }),
  z.object({ objectKey: z.string(), size: z.number().int().positive() }),
);

/** A recipient as `pdf.prepare-envelope` needs it: who, and the boxes of their fields. */
export const ZPreparedRecipient = z.object({
  name: z.string(),
  email: z.string(),
  role: ZRecipientRole,
  order: z.number().int(),
  fields: z.array(ZEnvelopeField).max(MAX_ENVELOPE_FIELDS),
});

/**
 * Revision 0 of an envelope's document, written before anyone signs: the original (rewritten when it
 * carries no signature yet, else appended to) with every recipient's fields as AcroForm fields (named
 * `r<i>f<j>`: the recipient's index in `recipients`, the field's index in their `fields`), an invisible
 * signature field for the service's seal, the certificate of completion's pages (a static header, the
 * body left as read-only text fields filled at completion) and the audit metadata. Every later revision
 * only fills fields and signs (form fill-in), so Acrobat keeps the earlier signatures valid. Reads
 * `sourceKey` (never deleted), writes `targetKey`.
 */
export const PdfPrepareEnvelope = defineRequest(
  'pdf.prepare-envelope',
  z.object({
    accountId: z.uuid(),
    auditId: ZAuditId,
    envelopeId: ZEnvelopeId,
    sourceKey: z.string().min(1),
    targetKey: z.string().min(1),
    fileName: z.string().min(1),
    subject: z.string(),
    senderEmail: z.string(),
    createdAt: ZIsoTimestamp,
    originalHash: ZFileHash,
    recipients: z.array(ZPreparedRecipient).min(1).max(MAX_ENVELOPE_RECIPIENTS),
  }),
  z.object({
    objectKey: z.string(),
    fileHash: ZFileHash,
    size: z.number().int().positive(),
    pageCount: z.number().int().positive(),
    /** Pages of the certificate of completion at the end. */
    certificatePages: z.number().int().positive(),
    events: z.array(ZAuditEvent),
  }),
);
