import { EnvelopeExpired, EnvelopeRecipientTurn } from '@esign/contracts';
import type { Logger } from '@esign/telemetry';
import type pg from 'pg';
import { whileHoldingLock } from './sweep-lock';
import {
  appendStory,
  ENVELOPE_COLUMNS,
  readRecipients,
  revokeLinks,
  updateRecipient,
  type TEnvelopeRow,
} from '../db/envelope-repository';
import { inTransaction, insertOutbox } from '../db/signing-repository';
import { acts, envelopeEvent, eventRecipient } from '../domain/envelope/envelope-deps';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Only one replica sweeps envelopes at a time: the others skip the run. */
const LOCK = 'documents:envelope-sweep';

export interface TEnvelopeSweepResult {
  /** Envelope IDs marked expired in this run. */
  readonly expired: string[];
  /** Reminders published: recipient ID and reminder number. */
  readonly reminded: { recipientId: string; reminderNumber: number }[];
}

export interface EnvelopeSweep {
  /** One run at `now`; `undefined` when another replica holds the sweep's lock. */
  runOnce(now?: Date): Promise<TEnvelopeSweepResult | undefined>;
}

// An envelope being completed (every signer and approver acted) never expires. A send's envelope
// expires with its send (the signing sweep; migration 0008's trigger).
const EXPIRE_DUE = `
update documents.envelopes set status = 'expired', expired_at = expires_at,
  claim_recipient_id = null, claimed_until = null
where id in (
  select id from documents.envelopes
  where status = 'pending' and not completing and expires_at <= $1 and send_id is null
  order by expires_at limit $2 for update skip locked
)
returning ${ENVELOPE_COLUMNS}`;

// Recipients whose next reminder is due: reminder n (1-based) falls due `firstAfterDays + (n - 1) ×
// everyDays` after their turn came, for n up to `max`, while the envelope is pending and unexpired.
// Their envelopes are locked, so a reminder never crosses an act on the same envelope.
const REMINDERS_DUE = `
select r.id as "recipientId", r.envelope_id as "envelopeId", r.notified_at as "notifiedAt",
  r.reminders_sent as "remindersSent"
from documents.envelope_recipients r join documents.envelopes e on e.id = r.envelope_id
where e.status = 'pending' and not e.completing and e.expires_at > $1 and e.reminders is not null
  and r.role in ('signer', 'approver') and r.status in ('notified', 'viewed') and not r.embedded
  and r.notified_at is not null
  and r.reminders_sent < (e.reminders->>'max')::int
  and r.notified_at + make_interval(days => (e.reminders->>'firstAfterDays')::int
        + r.reminders_sent * (e.reminders->>'everyDays')::int) <= $1
order by r.notified_at limit $2
for update of e skip locked`;

interface TReminderDue {
  readonly recipientId: string;
  readonly envelopeId: string;
  readonly notifiedAt: Date;
  readonly remindersSent: number;
}

/** The latest reminder due at `now` (reminders missed while no replica ran collapse into one). */
const reminderNumberAt = (
  settings: { firstAfterDays: number; everyDays: number; max: number },
  notifiedAt: Date,
  now: Date,
): number => {
  const elapsed = now.getTime() - notifiedAt.getTime() - settings.firstAfterDays * DAY_MS;
  if (elapsed < 0) return 0;
  return Math.min(settings.max, 1 + Math.floor(elapsed / (settings.everyDays * DAY_MS)));
};

/**
 * Expires pending envelopes at their `expiresAt` (`expiredAt` is the expiry itself, not the time of
 * the sweep): their links die, the story gets `expired`, and `events.envelope.expired` tells the
 * sender (`notify`: the signers and approvers who had not acted, whom its email names; they are not
 * emailed). Then reminds recipients whose turn came
 * and who have not acted, on the envelope's reminder settings: `events.envelope.recipient-turn` with
 * reason `reminder` (the mailer adds a link and emails it), `reminded` in the story; embedded
 * recipients are never reminded (no email). One transaction per run; replicas take turns through a
 * session advisory lock, tried, never waited for.
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
    return whileHoldingLock(deps.pool, LOCK, async () => {
      const result = await inTransaction(deps.pool, async (client) => {
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
            envelopeEvent(EnvelopeExpired.subject, envelope, expiredAt, {
              // Who had not acted: the sender's email names them (no one else is emailed).
              notify: (await readRecipients(client, [envelope.id]))
                .filter((r) => acts(r) && r.status !== 'signed' && r.status !== 'approved')
                .map(eventRecipient),
            }),
          );
        }
        const reminded: TEnvelopeSweepResult['reminded'] = [];
        const reminders = await client.query<TReminderDue>(REMINDERS_DUE, [now, deps.batch]);
        for (const due of reminders.rows) {
          const found = await client.query<TEnvelopeRow>(
            `select ${ENVELOPE_COLUMNS} from documents.envelopes where id = $1`,
            [due.envelopeId],
          );
          const envelope = found.rows[0];
          const recipient = (await readRecipients(client, [due.envelopeId])).find(
            (r) => r.id === due.recipientId,
          );
          if (!envelope?.reminders || !recipient) continue;
          const reminderNumber = reminderNumberAt(envelope.reminders, due.notifiedAt, now);
          if (reminderNumber <= due.remindersSent) continue;
          await updateRecipient(client, recipient.id, {
            reminders_sent: reminderNumber,
            last_reminded_at: now,
          });
          await appendStory(client, envelope.id, [
            {
              recipientId: recipient.id,
              event: 'reminded',
              at: now,
              ipAddress: null,
              userAgent: null,
              details: { recipientId: recipient.id, email: recipient.email, reminderNumber },
            },
          ]);
          await insertOutbox(
            client,
            envelopeEvent(EnvelopeRecipientTurn.subject, envelope, now, {
              recipient: eventRecipient(recipient),
              reason: 'reminder',
              expiresAt: envelope.expiresAt.toISOString(),
              requireEmailCode: recipient.requireEmailCode,
            }),
          );
          reminded.push({ recipientId: recipient.id, reminderNumber });
        }
        return { expired: due.rows.map((r) => r.id), reminded };
      });
      if (result.expired.length > 0 || result.reminded.length > 0) {
        deps.onWritten?.();
        deps.logger.info('envelopes swept', {
          expired: result.expired.length,
          reminded: result.reminded.length,
        });
      }
      return result;
    });
  },
});
