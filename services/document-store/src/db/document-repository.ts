import type { TStoredAuditEvent } from '@esign/contracts';
import { and, asc, count, desc, eq, gte, ilike, lt, type SQL } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import { insertDocumentRecord, type TNewDocument, type TOutboxEntry } from './insert-document-record';
import { auditEvents, documents, type TDocumentsSchema } from './schema';

export type DocumentsDatabase = NodePgDatabase<TDocumentsSchema>;
export type TDocumentRow = typeof documents.$inferSelect;

export type TDocumentSortColumn = 'signed_at' | 'file_name' | 'created_at';

export interface TDocumentQuery {
  readonly accountId: string;
  readonly offset: number;
  readonly limit: number;
  /** Matched case-insensitively anywhere in the file name; `%` and `_` are literal. */
  readonly search?: string;
  /** Inclusive. */
  readonly signedFrom?: Date;
  /** Exclusive. */
  readonly signedBefore?: Date;
  readonly sortBy: TDocumentSortColumn;
  readonly sortDir: 'asc' | 'desc';
}

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
  listDocuments(query: TDocumentQuery): Promise<{ rows: TDocumentRow[]; total: number }>;
  findDocument(options: {
    accountId: string;
    auditId: string;
  }): Promise<{ document: TDocumentRow; auditLog: TStoredAuditEvent[] } | undefined>;
  /** The document an account's Idempotency-Key produced. */
  findByIdempotencyKey(options: { accountId: string; key: string }): Promise<TDocumentRow | undefined>;
}

/** `%`, `_` and the escape character itself are matched literally by LIKE after this. */
export const escapeLikePattern = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

const SORT_COLUMNS = {
  signed_at: documents.signedAt,
  file_name: documents.fileName,
  created_at: documents.createdAt,
} as const;

/**
 * Reads go through drizzle; the write on the sign path is one hand-written prepared statement over the
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

  async listDocuments(query) {
    const conditions: SQL[] = [eq(documents.accountId, query.accountId)];
    if (query.search) conditions.push(ilike(documents.fileName, `%${escapeLikePattern(query.search)}%`));
    if (query.signedFrom) conditions.push(gte(documents.signedAt, query.signedFrom));
    if (query.signedBefore) conditions.push(lt(documents.signedAt, query.signedBefore));
    const where = and(...conditions);
    const direction = query.sortDir === 'asc' ? asc : desc;
    const [rows, totals] = await Promise.all([
      db
        .select()
        .from(documents)
        .where(where)
        // The id makes the order total, so pages neither repeat nor skip rows that tie on the sort column.
        .orderBy(direction(SORT_COLUMNS[query.sortBy]), direction(documents.id))
        .limit(query.limit)
        .offset(query.offset),
      db.select({ total: count() }).from(documents).where(where),
    ]);
    return { rows, total: totals[0]?.total ?? 0 };
  },

  async findByIdempotencyKey({ accountId, key }) {
    const [document] = await db
      .select()
      .from(documents)
      .where(and(eq(documents.accountId, accountId), eq(documents.idempotencyKey, key)));
    return document;
  },

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
