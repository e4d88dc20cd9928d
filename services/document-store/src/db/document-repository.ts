import type { TStoredAuditEvent } from '@esign/contracts';
import { and, asc, count, desc, eq, gte, ilike, lt, type SQL } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import { auditEvents, documents, outbox, type TDocumentsSchema } from './schema';

export type DocumentsDatabase = NodePgDatabase<TDocumentsSchema>;
export type TDocumentRow = typeof documents.$inferSelect;
export type TNewDocumentRow = typeof documents.$inferInsert;

/** An event to publish once the transaction that wrote it commits. */
export interface TOutboxEntry {
  readonly id: string;
  readonly subject: string;
  readonly payload: unknown;
}

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
    document: TNewDocumentRow & { id: string };
    auditLog: readonly TStoredAuditEvent[];
    events: readonly TOutboxEntry[];
  }): Promise<boolean>;
  listDocuments(query: TDocumentQuery): Promise<{ rows: TDocumentRow[]; total: number }>;
  findDocument(options: {
    accountId: string;
    auditId: string;
  }): Promise<{ document: TDocumentRow; auditLog: TStoredAuditEvent[] } | undefined>;
}

/** `%`, `_` and the escape character itself are matched literally by LIKE after this. */
export const escapeLikePattern = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

const SORT_COLUMNS = {
  signed_at: documents.signedAt,
  file_name: documents.fileName,
  created_at: documents.createdAt,
} as const;

export const createDocumentRepository = (db: DocumentsDatabase): DocumentRepository => ({
  recordDocument({ document, auditLog, events }) {
    return db.transaction(async (tx) => {
      const inserted = await tx
        .insert(documents)
        .values(document)
        .onConflictDoNothing({ target: documents.auditId })
        .returning({ id: documents.id });
      if (inserted.length === 0) return false;
      if (auditLog.length > 0) {
        await tx.insert(auditEvents).values(
          auditLog.map((entry) => ({
            documentId: document.id,
            sequence: entry.sequence,
            event: entry.event,
            timestamp: new Date(entry.timestamp),
            details: entry.details,
            prevHash: entry.prevHash,
            hash: entry.hash,
          })),
        );
      }
      if (events.length > 0) {
        await tx
          .insert(outbox)
          .values(events.map((e) => ({ id: e.id, subject: e.subject, payload: e.payload })));
      }
      return true;
    });
  },

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
