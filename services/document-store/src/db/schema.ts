import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  index,
  bigint,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/** Everything document-store keeps lives in its own Postgres schema. */
export const documentsSchema = pgSchema('documents');

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Audit detail values: flat, primitive. */
export type TAuditDetails = Record<string, string | number | boolean | null>;

/** One signed document. Every read is scoped by `account_id`; the indexes follow the list's filters and sorts. */
export const documents = documentsSchema.table(
  'documents',
  {
    id: uuid('id').primaryKey(),
    accountId: uuid('account_id').notNull(),
    auditId: text('audit_id').notNull().unique('documents_audit_id_unique'),
    fileName: text('file_name').notNull(),
    signerName: text('signer_name').notNull(),
    signerEmail: text('signer_email').notNull(),
    ipAddress: text('ip_address').notNull(),
    userAgent: text('user_agent').notNull(),
    signedAt: timestamptz('signed_at').notNull(),
    fileHash: text('file_hash').notNull(),
    originalHash: text('original_hash').notNull(),
    /** Where the signed PDF is in object storage. */
    objectKey: text('object_key').notNull(),
    size: integer('size').notNull(),
    pageCount: integer('page_count').notNull(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    /** The client's Idempotency-Key, unique per account, and the SHA-256 of the request it came with. */
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
  },
  (t) => [
    uniqueIndex('documents_account_idempotency_key_idx')
      .on(t.accountId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
    index('documents_account_signed_at_idx').on(t.accountId, t.signedAt, t.id),
    index('documents_account_file_name_idx').on(t.accountId, t.fileName, t.id),
    index('documents_account_created_at_idx').on(t.accountId, t.createdAt, t.id),
    // Substring search of file names (ILIKE '%…%'), through pg_trgm. Built CONCURRENTLY outside the
    // migration transaction: see `CONCURRENT_INDEXES` in src/db/concurrent-indexes.ts.
    index('documents_file_name_trgm_idx')
      .using('gin', sql`${t.fileName} gin_trgm_ops`)
      .concurrently(),
    // Public verification looks a file up by its SHA-256 (any account). Built CONCURRENTLY too.
    index('documents_file_hash_idx').on(t.fileHash).concurrently(),
  ],
);

/**
 * How many documents each account has, kept by a statement-level trigger on `documents` in the same
 * transaction as the insert (migration 0003). An account's count is spread over slots (the writing
 * backend's pid modulo `DOCUMENT_COUNT_SLOTS`) so that concurrent inserts of one account do not all
 * wait on one row; the list sums the slots.
 */
export const accountDocumentCounts = documentsSchema.table(
  'account_document_counts',
  {
    accountId: uuid('account_id').notNull(),
    slot: smallint('slot').notNull(),
    count: bigint('count', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ name: 'account_document_counts_pk', columns: [t.accountId, t.slot] })],
);

/** A document's audit log, hash-chained entry to entry (see `hashAuditEntry`). Append-only. */
export const auditEvents = documentsSchema.table(
  'audit_events',
  {
    documentId: uuid('document_id')
      .notNull()
      .references(() => documents.id, { onDelete: 'cascade' }),
    sequence: integer('sequence').notNull(),
    event: text('event').notNull(),
    timestamp: timestamptz('timestamp').notNull(),
    details: jsonb('details').$type<TAuditDetails>().notNull(),
    prevHash: text('prev_hash').notNull(),
    hash: text('hash').notNull(),
  },
  (t) => [primaryKey({ name: 'audit_events_pk', columns: [t.documentId, t.sequence] })],
);

/**
 * Events written in the same transaction as the change they announce; the relay publishes them to
 * JetStream with the row id as the message id, then sets `published_at`.
 */
export const outbox = documentsSchema.table(
  'outbox',
  {
    id: uuid('id').primaryKey(),
    /** The event's subject without the stack prefix (the contract's subject). */
    subject: text('subject').notNull(),
    payload: jsonb('payload').$type<unknown>().notNull(),
    /** W3C trace context of the request that wrote the row: its event continues that trace. */
    traceContext: jsonb('trace_context').$type<Record<string, string>>(),
    createdAt: timestamptz('created_at').notNull().defaultNow(),
    publishedAt: timestamptz('published_at'),
  },
  (t) => [
    index('outbox_unpublished_idx')
      .on(t.createdAt, t.id)
      .where(sql`${t.publishedAt} is null`),
  ],
);

/**
 * A request to sign sent by email (send for signing). `audit_id` is reserved at creation: the signed
 * document carries it. `object_key` is the original (under a prefix the bucket's lifecycle keeps).
 * Reminders: `reminder_count` sent so far, `next_reminder_at` when the next is due (null: no more).
 * The original is removed by the sweep once the request has ended (`original_removed_at`).
 */
export const signingRequests = documentsSchema.table(
  'signing_requests',
  {
    id: text('id').primaryKey(),
    accountId: uuid('account_id').notNull(),
    auditId: text('audit_id').notNull().unique('signing_requests_audit_id_unique'),
    senderEmail: text('sender_email').notNull(),
    recipientEmail: text('recipient_email').notNull(),
    recipientName: text('recipient_name').notNull(),
    subject: text('subject').notNull(),
    message: text('message'),
    fileName: text('file_name').notNull(),
    objectKey: text('object_key').notNull(),
    pageCount: integer('page_count'),
    positions: jsonb('positions').$type<unknown[]>().notNull(),
    /** pending | signed | declined | canceled | expired */
    status: text('status').notNull(),
    sentAt: timestamptz('sent_at').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    viewedAt: timestamptz('viewed_at'),
    signedAt: timestamptz('signed_at'),
    declinedAt: timestamptz('declined_at'),
    declineReason: text('decline_reason'),
    canceledAt: timestamptz('canceled_at'),
    expiredAt: timestamptz('expired_at'),
    /** `sha256:` of the signed document, once signed. */
    fileHash: text('file_hash'),
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    reminderCount: integer('reminder_count').notNull().default(0),
    nextReminderAt: timestamptz('next_reminder_at'),
    /**
     * Until when a signature is in progress (`signing.claim`): a second submit meanwhile is refused
     * before the signer runs, so two signers never write the reserved audit ID's object.
     */
    claimedUntil: timestamptz('claimed_until'),
    /** When the sweep removed the original from object storage (once the request has ended). */
    originalRemovedAt: timestamptz('original_removed_at'),
  },
  (t) => [
    check(
      'signing_requests_status_check',
      sql`${t.status} in ('pending', 'signed', 'declined', 'canceled', 'expired')`,
    ),
    uniqueIndex('signing_requests_account_idempotency_key_idx')
      .on(t.accountId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
    index('signing_requests_account_sent_at_idx').on(t.accountId, t.sentAt),
    // The sweep's two questions: which pending requests have expired, which owe a reminder.
    index('signing_requests_pending_expires_idx')
      .on(t.expiresAt)
      .where(sql`${t.status} = 'pending'`),
    index('signing_requests_original_to_remove_idx')
      .on(t.id)
      .where(sql`${t.status} <> 'pending' and ${t.originalRemovedAt} is null`),
    index('signing_requests_pending_reminder_idx')
      .on(t.nextReminderAt)
      .where(sql`${t.status} = 'pending' and ${t.nextReminderAt} is not null`),
  ],
);

/** Signing links, as the SHA-256 (hex) of their token only: a token is never stored. */
export const signingLinks = documentsSchema.table(
  'signing_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    sendId: text('send_id')
      .notNull()
      .references(() => signingRequests.id, { onDelete: 'cascade' }),
    /** The event whose email carried the link. */
    eventId: uuid('event_id').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    revokedAt: timestamptz('revoked_at'),
  },
  (t) => [index('signing_links_send_id_idx').on(t.sendId)],
);

/**
 * A signing request's story (sent, emailed, viewed, reminded, resent, declined, canceled, expired), in
 * order. When the signed document is recorded these entries head its hash-chained audit log.
 */
export const signingEvents = documentsSchema.table(
  'signing_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    sendId: text('send_id')
      .notNull()
      .references(() => signingRequests.id, { onDelete: 'cascade' }),
    event: text('event').notNull(),
    timestamp: timestamptz('timestamp').notNull(),
    details: jsonb('details').$type<TAuditDetails>().notNull(),
    /** True for entries a person caused (view, decline): they carry IP and user agent. */
    byRecipient: boolean('by_recipient').notNull().default(false),
  },
  (t) => [index('signing_events_send_id_idx').on(t.sendId, t.id)],
);

/**
 * An envelope: one document, several recipients acting in groups in the sender's order. `head_key` is
 * the document as it stands (the original, then each signer's revision: `revision` counts them); one
 * signer at a time holds the head (`claim_recipient_id` until `claimed_until`). `completing` is set when
 * every signer and approver has acted and `events.envelope.finalize-due` is queued; the finalize
 * consumer then records the sealed document under `audit_id` and sets `completed`.
 */
export const envelopes = documentsSchema.table(
  'envelopes',
  {
    id: text('id').primaryKey(),
    accountId: uuid('account_id').notNull(),
    auditId: text('audit_id').notNull().unique('envelopes_audit_id_unique'),
    senderEmail: text('sender_email').notNull(),
    subject: text('subject').notNull(),
    message: text('message'),
    fileName: text('file_name').notNull(),
    originalKey: text('original_key').notNull(),
    /** `sha256:` of the upload; null for a send's envelope (send never hashed its original). */
    originalHash: text('original_hash'),
    pageCount: integer('page_count').notNull(),
    /** pending | completed | declined | canceled | expired */
    status: text('status').notNull(),
    headKey: text('head_key').notNull(),
    revision: integer('revision').notNull().default(0),
    claimRecipientId: text('claim_recipient_id'),
    claimedUntil: timestamptz('claimed_until'),
    completing: boolean('completing').notNull().default(false),
    expiresAt: timestamptz('expires_at').notNull(),
    /** `{ firstAfterDays, everyDays, max }`, or null for none. */
    reminders: jsonb('reminders').$type<{ firstAfterDays: number; everyDays: number; max: number }>(),
    createdAt: timestamptz('created_at').notNull(),
    completedAt: timestamptz('completed_at'),
    declinedAt: timestamptz('declined_at'),
    declineReason: text('decline_reason'),
    canceledAt: timestamptz('canceled_at'),
    expiredAt: timestamptz('expired_at'),
    /** `sha256:` of the completed document, and where it is. */
    fileHash: text('file_hash'),
    signedKey: text('signed_key'),
    idempotencyKey: text('idempotency_key'),
    requestHash: text('request_hash'),
    /**
     * Set when the envelope is a send's (`POST /api/v1/send`): its one signer's link, emails, reminders
     * and events are the send's (`signing_requests`), and a trigger keeps this envelope in step with it
     * (migration 0008). Envelope sweeps and finalizing leave such envelopes alone.
     */
    sendId: text('send_id').unique('envelopes_send_id_unique'),
  },
  (t) => [
    check(
      'envelopes_status_check',
      sql`${t.status} in ('pending', 'completed', 'declined', 'canceled', 'expired')`,
    ),
    uniqueIndex('envelopes_account_idempotency_key_idx')
      .on(t.accountId, t.idempotencyKey)
      .where(sql`${t.idempotencyKey} is not null`),
    index('envelopes_account_created_at_idx').on(t.accountId, t.createdAt, t.id),
    index('envelopes_pending_expires_idx')
      .on(t.expiresAt)
      .where(sql`${t.status} = 'pending'`),
  ],
);

/** An envelope's recipients, in the sender's order (`position`). */
export const envelopeRecipients = documentsSchema.table(
  'envelope_recipients',
  {
    id: text('id').primaryKey(),
    envelopeId: text('envelope_id')
      .notNull()
      .references(() => envelopes.id, { onDelete: 'cascade' }),
    position: integer('position').notNull(),
    name: text('name').notNull(),
    email: text('email').notNull(),
    /** signer | approver | cc */
    role: text('role').notNull(),
    orderGroup: integer('order_group').notNull(),
    requireEmailCode: boolean('require_email_code').notNull(),
    embedded: boolean('embedded').notNull(),
    fields: jsonb('fields').$type<unknown[]>().notNull(),
    /** waiting | notified | viewed | signed | approved | declined */
    status: text('status').notNull(),
    notifiedAt: timestamptz('notified_at'),
    viewedAt: timestamptz('viewed_at'),
    actedAt: timestamptz('acted_at'),
    declineReason: text('decline_reason'),
    remindersSent: integer('reminders_sent').notNull().default(0),
    lastRemindedAt: timestamptz('last_reminded_at'),
  },
  (t) => [uniqueIndex('envelope_recipients_envelope_position_idx').on(t.envelopeId, t.position)],
);

/**
 * Links of envelope recipients, as the SHA-256 (hex) of their token only. An embedded link (`mode`
 * `embedded`) opens within `expires_at` (5 minutes) and once: its first `envelope.record-view` sets
 * `used_at`, after which it keeps working for the page that opened it but refuses another view.
 */
export const envelopeLinks = documentsSchema.table(
  'envelope_links',
  {
    tokenHash: text('token_hash').primaryKey(),
    recipientId: text('recipient_id')
      .notNull()
      .references(() => envelopeRecipients.id, { onDelete: 'cascade' }),
    /** replace | add | embedded */
    mode: text('mode').notNull(),
    eventId: uuid('event_id'),
    createdAt: timestamptz('created_at').notNull(),
    revokedAt: timestamptz('revoked_at'),
    expiresAt: timestamptz('expires_at'),
    usedAt: timestamptz('used_at'),
    /** A requireEmailCode recipient's one-time code: SHA-256 hex of `<token_hash>:<code>`, never the code. */
    codeHash: text('code_hash'),
    codeExpiresAt: timestamptz('code_expires_at'),
    /** Wrong tries of the current code (dead at EMAIL_CODE_MAX_ATTEMPTS). */
    codeAttempts: integer('code_attempts').notNull().default(0),
    codeVerifiedAt: timestamptz('code_verified_at'),
    /** New codes asked for in the window that started at `code_window_start` (the rate limit). */
    codeRequests: integer('code_requests').notNull().default(0),
    codeWindowStart: timestamptz('code_window_start'),
  },
  (t) => [index('envelope_links_recipient_id_idx').on(t.recipientId)],
);

/**
 * An envelope's story (sent, notified, emailed, viewed, signed, approved, declined, canceled, expired,
 * completed, reminded), in order. When the envelope completes, these entries head the document's
 * hash-chained audit log.
 */
export const envelopeEvents = documentsSchema.table(
  'envelope_events',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    envelopeId: text('envelope_id')
      .notNull()
      .references(() => envelopes.id, { onDelete: 'cascade' }),
    recipientId: text('recipient_id'),
    event: text('event').notNull(),
    at: timestamptz('at').notNull(),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    details: jsonb('details').$type<TAuditDetails>().notNull(),
  },
  (t) => [index('envelope_events_envelope_id_idx').on(t.envelopeId, t.id)],
);

export const schema = {
  documents,
  auditEvents,
  outbox,
  accountDocumentCounts,
  signingRequests,
  signingLinks,
  signingEvents,
  envelopes,
  envelopeRecipients,
  envelopeLinks,
  envelopeEvents,
};
export type TDocumentsSchema = typeof schema;
