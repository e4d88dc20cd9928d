import { and, asc, inArray, isNull, sql } from 'drizzle-orm';
import type { DocumentsDatabase } from '../db/document-repository';
import { outbox } from '../db/schema';

/** An outbox row waiting to be published. */
export interface TOutboxRow {
  readonly id: string;
  readonly subject: string;
  readonly payload: unknown;
}

/** What one pass over the outbox did. */
export interface TOutboxPass {
  readonly claimed: number;
  readonly published: number;
  /** Why the pass stopped early (the rows from there on stay unpublished). */
  readonly failure?: unknown;
}

export interface OutboxRepository {
  /**
   * Claim up to `limit` unpublished rows with one of `subjects` (the events this process knows how to
   * publish; rows of newer event kinds are left for the replicas that know them), oldest first,
   * skipping rows another replica holds
   * (`FOR UPDATE SKIP LOCKED`), hand each to `publish` in order and mark those it accepted (true) as
   * published, in the same transaction. A row `publish` declines (false) stays unpublished; a throw
   * ends the pass, keeping the marks made so far.
   */
  publishPending(options: {
    limit: number;
    subjects: readonly string[];
    publish: (row: TOutboxRow) => Promise<boolean>;
  }): Promise<TOutboxPass>;
}

export const createOutboxRepository = (db: DocumentsDatabase): OutboxRepository => ({
  publishPending({ limit, subjects, publish }) {
    return db.transaction(async (tx) => {
      const rows = await tx
        .select({ id: outbox.id, subject: outbox.subject, payload: outbox.payload })
        .from(outbox)
        .where(and(isNull(outbox.publishedAt), inArray(outbox.subject, [...subjects])))
        .orderBy(asc(outbox.createdAt), asc(outbox.id))
        .limit(limit)
        .for('update', { skipLocked: true });
      const published: string[] = [];
      let failure: unknown;
      for (const row of rows) {
        try {
          if (await publish(row)) published.push(row.id);
        } catch (err) {
          failure = err;
          break;
        }
      }
      if (published.length > 0) {
        await tx
          .update(outbox)
          .set({ publishedAt: sql`now()` })
          .where(inArray(outbox.id, published));
      }
      return { claimed: rows.length, published: published.length, failure };
    });
  },
});
