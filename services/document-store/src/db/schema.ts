import { sql } from 'drizzle-orm';
import {
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

export const schema = { documents, auditEvents, outbox, accountDocumentCounts };
export type TDocumentsSchema = typeof schema;
