import { sql } from 'drizzle-orm';
import {
  index,
  integer,
  jsonb,
  pgSchema,
  primaryKey,
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
  ],
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

export const schema = { documents, auditEvents, outbox };
export type TDocumentsSchema = typeof schema;
