import { EnvelopeExpired } from '@esign/contracts';
import type { Logger } from '@esign/telemetry';
import type pg from 'pg';
import { appendStory, ENVELOPE_COLUMNS, revokeLinks, type TEnvelopeRow } from '../db/envelope-repository';
import { inTransaction, insertOutbox } from '../db/signing-repository';
import { envelopeEvent } from '../domain/envelope/envelope-deps';

/** Only one replica sweeps envelopes at a time: the others skip the run. */
const LOCK = 'documents:envelope-sweep';

export interface TEnvelopeSweepResult {
  /** Envelope IDs marked expired in this run. */
  readonly expired: string[];
}

export interface EnvelopeSweep {
  /** One run at `now`; `undefined` when another replica holds the sweep's lock. */
  runOnce(now?: Date): Promise<TEnvelopeSweepResult | undefined>;
}

// An envelope being completed (every signer and approver acted) never expires.
const EXPIRE_DUE = `
update documents.envelopes set status = 'expired', expired_at = expires_at,
  claim_recipient_id = null, claimed_until = null
where id in (
  select id from documents.envelopes
  where status = 'pending' and not completing and expires_at <= $1
  order by expires_at limit $2 for update skip locked
)
returning ${ENVELOPE_COLUMNS}`;

/**
 * Expires pending envelopes at their `expiresAt` (`expiredAt` is the expiry itself, not the time of
 * the sweep): their links die, the story gets `expired`, and `events.envelope.expired` tells the
 * sender (`notify` is empty: the recipients are not told). One transaction per run; replicas take
 * turns through a session advisory lock, tried, never waited for.
 */
export const createEnvelopeSweep = (deps: {
  pool: pg.Pool;
  logger: Logger;
  batch: number;
  /** Wakes the outbox relay after a run that wrote events. */
  onWritten?: () => void;
  /** The clock of a run without an explicit time (the signing requests' clock). */
  now?: () => Date;
}): EnvelopeSweep => ({
  async runOnce(now = deps.now?.() ?? new Date()) {
    const lockClient = await deps.pool.connect();
    try {
      const { rows } = await lockClient.query<{ ok: boolean }>(
        'select pg_try_advisory_lock(hashtext($1)) as ok',
        [LOCK],
      );
      if (!rows[0]?.ok) return undefined;
      try {
        const expired = await inTransaction(deps.pool, async (client) => {
          const due = await client.query<TEnvelopeRow>(EXPIRE_DUE, [now, deps.batch]);
          for (const envelope of due.rows) {
            const expiredAt = envelope.expiredAt ?? envelope.expiresAt;
            await revokeLinks(client, { envelopeId: envelope.id }, expiredAt);
            await appendStory(client, envelope.id, [
              {
                recipientId: null,
                event: 'expired',
                at: expiredAt,
                ipAddress: null,
                userAgent: null,
                details: {},
              },
            ]);
            await insertOutbox(
              client,
              envelopeEvent(EnvelopeExpired.subject, envelope, expiredAt, { notify: [] }),
            );
          }
          return due.rows.map((r) => r.id);
        });
        if (expired.length > 0) {
          deps.onWritten?.();
          deps.logger.info('envelopes swept', { expired: expired.length });
        }
        return { expired };
      } finally {
        await lockClient.query('select pg_advisory_unlock(hashtext($1))', [LOCK]);
      }
    } finally {
      lockClient.release();
    }
  },
});
