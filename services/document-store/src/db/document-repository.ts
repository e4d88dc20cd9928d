import type { TStoredAuditEvent } from '@esign/contracts';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import {
  countDocuments,
  listDocumentsPage,
  type TDocumentListRow,
  type TDocumentQuery,
} from './list-documents-query';
import { insertDocumentRecord, type TNewDocument, type TOutboxEntry } from './insert-document-record';
import { auditEvents, documents, type TDocumentsSchema } from './schema';

export type DocumentsDatabase = NodePgDatabase<TDocumentsSchema>;
export type TDocumentRow = typeof documents.$inferSelect;

/** Signed documents and their audit logs. Every read takes the account id. */
export interface DocumentRepository {
  /**
   * Insert the document, its audit log and its outbox event in one transaction. `false` (and nothing
   * written) when a document with this audit ID exists.
   */
  recordDocument(input: {
    document: TNewDocument;
    auditLog: readonly TStoredAuditEvent[];
    events: readonly TOutboxEntry[];
  }): Promise<boolean>;
  /** One page of the query's documents (`limit + 1` rows when a next page exists). */
  listDocuments(query: TDocumentQuery): Promise<TDocumentListRow[]>;
  /** How many documents the query matches; `exact` false when `total` is an estimate. */
  countDocuments(query: TDocumentQuery): Promise<{ total: number; exact: boolean }>;
  findDocument(options: {
    accountId: string;
    auditId: string;
  }): Promise<{ document: TDocumentRow; auditLog: TStoredAuditEvent[] } | undefined>;
  /** The document an account's Idempotency-Key produced. */
  findByIdempotencyKey(options: { accountId: string; key: string }): Promise<TDocumentRow | undefined>;
  /**
   * Public verification, across accounts: the documents with this audit ID, or whose signed file's
   * SHA-256 is one of `fileHashes`. The only read not scoped by account (callers mask what they return).
   */
  findIssued(
    by: { auditId: string } | { fileHashes: readonly string[] },
  ): Promise<
    Pick<TDocumentRow, 'auditId' | 'signedAt' | 'fileHash' | 'signerName' | 'signerEmail' | 'pageCount'>[]
  >;
}

/**
 * Reads go through drizzle, except the list (hand-written SQL in `list-documents-query.ts`); the write on the sign path is one hand-written prepared statement over the
 * pool (see `insertDocumentRecord`): building its three inserts in drizzle was the largest CPU cost of a record,
 * and the explicit transaction around them took four more round trips.
 */
export const createDocumentRepository = ({
  db,
  pool,
}: {
  db: DocumentsDatabase;
  pool: pg.Pool;
}): DocumentRepository => ({
  recordDocument: (input) => insertDocumentRecord(pool, input),

  listDocuments: (query) => listDocumentsPage(pool, query),
  countDocuments: (query) => countDocuments(pool, query),

  async findByIdempotencyKey({ accountId, key }) {
    const [document] = await db
      .select()
      .from(documents)
      .where(and(eq(documents.accountId, accountId), eq(documents.idempotencyKey, key)));
    return document;
  },

  findIssued: (by) =>
    db
      .select({
        auditId: documents.auditId,
        signedAt: documents.signedAt,
        fileHash: documents.fileHash,
        signerName: documents.signerName,
        signerEmail: documents.signerEmail,
        pageCount: documents.pageCount,
      })
      .from(documents)
      .where(
        'auditId' in by ? eq(documents.auditId, by.auditId) : inArray(documents.fileHash, [...by.fileHashes]),
      )
      .limit(64),

  async findDocument({ accountId, auditId }) {
    const [document] = await db
      .select()
      .from(documents)
      .where(and(eq(documents.accountId, accountId), eq(documents.auditId, auditId)));
    if (!document) return undefined;
    const entries = await db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.documentId, document.id))
      .orderBy(asc(auditEvents.sequence));
    return {
      document,
      auditLog: entries.map((e) => ({
        event: e.event,
        timestamp: e.timestamp.toISOString(),
        details: e.details,
        sequence: e.sequence,
        prevHash: e.prevHash,
        hash: e.hash,
      })),
    };
  },
});

export { escapeLikePattern, type TDocumentQuery, type TDocumentSortColumn } from './list-documents-query';
