import { cachedReading, type Instruments } from '@esign/telemetry';
import type pg from 'pg';

/**
 * One query for both gauges. It reads only the partial index `outbox_unpublished_idx` (rows where
 * `published_at is null`, ordered by `created_at`): its size is the backlog, not the table, so a
 * scrape stays cheap however many rows were ever published. Every unpublished row counts, those of
 * event kinds this replica does not publish too (another replica, or the next version, will).
 */
const OUTBOX_BACKLOG = `
select count(*)::int as pending,
       coalesce(extract(epoch from now() - min(created_at)), 0)::float8 as "oldestAgeSeconds"
from documents.outbox
where published_at is null`;

/**
 * `esign.outbox.pending` and `esign.outbox.oldest.age`, read at each scrape by one query shared by
 * both gauges (kept for a second). A scrape while Postgres is away reports neither.
 */
export const observeOutbox = (options: { pool: pg.Pool; metrics: Pick<Instruments, 'gauge'> }): void => {
  const { pool, metrics } = options;
  const backlog = cachedReading({
    read: async () => {
      const { rows } = await pool.query<{ pending: number; oldestAgeSeconds: number }>(OUTBOX_BACKLOG);
      return rows[0] ?? { pending: 0, oldestAgeSeconds: 0 };
    },
    maxAgeMs: 1000,
  });
  metrics.gauge('outboxPending', async (report) => report((await backlog()).pending));
  metrics.gauge('outboxOldestAge', async (report) => report(Math.max(0, (await backlog()).oldestAgeSeconds)));
};
