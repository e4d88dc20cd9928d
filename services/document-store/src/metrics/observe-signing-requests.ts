import { cachedReading, type Instruments } from '@esign/telemetry';
import type pg from 'pg';

/** Every state a signing request can be in (the table's check constraint). */
export const SIGNING_STATES = ['pending', 'signed', 'declined', 'canceled', 'expired'] as const;
type TSigningState = (typeof SIGNING_STATES)[number];

/** Pending requests: an index-only count on the partial index of pending requests (`signing_requests_pending_expires_idx`). */
const COUNT_PENDING = `select count(*)::int as count from documents.signing_requests where status = 'pending'`;
/** The ended states: a scan of the table, which grows without end, hence read rarely. */
const COUNT_ENDED = `
select status, count(*)::int as count from documents.signing_requests
where status <> 'pending'
group by status`;

/** How often the ended states are counted again, at most (per replica). */
export const ENDED_COUNT_MAX_AGE_MS = 5 * 60_000;

/**
 * `esign.signing_requests` by state. `pending`, the number that moves and that an operator acts on,
 * is counted at every scrape, cheaply (partial index). The ended states are counted by a scan of the
 * whole table, at most every `endedMaxAgeMs` (5 minutes), and reported from that count meanwhile: on
 * millions of rows a scan per scrape would cost more than the figure is worth. Every state is
 * reported, 0 when no request is in it. A failed count reports nothing for that scrape.
 */
export const observeSigningRequests = (options: {
  pool: pg.Pool;
  metrics: Pick<Instruments, 'gauge'>;
  endedMaxAgeMs?: number;
}): void => {
  const { pool } = options;
  const ended = cachedReading({
    read: async () => {
      const { rows } = await pool.query<{ status: TSigningState; count: number }>(COUNT_ENDED);
      return new Map(rows.map((row) => [row.status, row.count]));
    },
    maxAgeMs: options.endedMaxAgeMs ?? ENDED_COUNT_MAX_AGE_MS,
  });
  options.metrics.gauge('signingRequests', async (report) => {
    const [pending, counts] = await Promise.all([pool.query<{ count: number }>(COUNT_PENDING), ended()]);
    for (const state of SIGNING_STATES) {
      const count = state === 'pending' ? (pending.rows[0]?.count ?? 0) : (counts.get(state) ?? 0);
      report(count, { 'esign.state': state });
    }
  });
};
