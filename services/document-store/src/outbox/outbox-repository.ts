import type pg from 'pg';
import { prepared } from '../db/prepared';

/** An outbox row waiting to be published. */
export interface TOutboxRow {
  readonly id: string;
  readonly subject: string;
  readonly payload: unknown;
  /** Trace context of the request that wrote the row (null when it was not traced). */
  readonly traceContext: Record<string, string> | null;
}

/** What publishing a batch of rows did. */
export interface TBatchOutcome {
  /** Ids of the rows now in the event stream: these are marked published. */
  readonly published: readonly string[];
  /** Why some rows were not sent (a bus failure); they stay unpublished for a later pass. */
  readonly failure?: unknown;
}

/** What one pass over the outbox did. */
export interface TOutboxPass {
  readonly claimed: number;
  readonly published: number;
  /** Why the pass did not publish everything it could (those rows stay unpublished). */
  readonly failure?: unknown;
}

export interface OutboxRepository {
  /**
   * Claim up to `limit` unpublished rows with one of `subjects` (the events this process knows how to
   * publish; rows of newer event kinds are left for the replicas that know them), oldest first,
   * skipping rows another replica holds (`FOR UPDATE SKIP LOCKED`), hand them to `publish` as one
   * batch and mark the ones it reports published, in the same transaction. Rows it leaves out stay
   * unpublished.
   */
  publishPending(options: {
    limit: number;
    subjects: readonly string[];
    publish: (rows: readonly TOutboxRow[]) => Promise<TBatchOutcome>;
  }): Promise<TOutboxPass>;
}

const CLAIM_ROWS = `
select id, subject, payload, trace_context as "traceContext" from documents.outbox
where published_at is null and subject = any($1::text[])
order by created_at, id
limit $2
for update skip locked`;

const MARK_PUBLISHED = 'update documents.outbox set published_at = now() where id = any($1::uuid[])';

/**
 * The outbox over plain pg: one pooled client and one transaction per pass, whether the pass moves one
 * row or a hundred (the relay batches, so the round trips are shared by every row of a pass).
 */
export const createOutboxRepository = (pool: pg.Pool): OutboxRepository => ({
  async publishPending({ limit, subjects, publish }) {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('begin');
      const { rows } = await client.query<TOutboxRow & pg.QueryResultRow>(
        prepared('claim-outbox-rows', CLAIM_ROWS, [subjects, Math.trunc(limit)]),
      );
      const outcome: TBatchOutcome = rows.length > 0 ? await publish(rows) : { published: [] };
      if (outcome.published.length > 0) {
        await client.query(prepared('mark-outbox-published', MARK_PUBLISHED, [outcome.published]));
      }
      await client.query('commit');
      return { claimed: rows.length, published: outcome.published.length, failure: outcome.failure };
    } catch (err) {
      // Also after a failed claim: its `begin` may have left the connection in an aborted transaction.
      await client.query('rollback').catch((rollbackErr: unknown) => {
        // A connection that cannot roll back must not go back to the pool.
        broken = rollbackErr instanceof Error ? rollbackErr : new Error(String(rollbackErr));
      });
      throw err;
    } finally {
      client.release(broken);
    }
  },
});
