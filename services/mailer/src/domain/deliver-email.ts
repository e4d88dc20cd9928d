import { retryWhileDown } from '@esign/db';
import type { Logger } from '@esign/telemetry';
import type { MailTransport, TOutgoingMail } from '../adapters/smtp-transport';
import type { DeliveryKey, DeliveryRepository } from '../db/delivery-repository';
import type { MailOutcomes } from './mail-outcomes';

/** Why an email is not sent after all (the request is no longer pending, say). */
export interface TSkip {
  readonly skip: string;
}

/**
 * An email as composed: with `linkTokenHash` when it carries a link whose one-time code goes in an
 * email of its own (recorded with the sent email, so that a retry of the code's email can bind a new
 * code to that link).
 */
export type TComposedMail = TOutgoingMail & { readonly linkTokenHash?: string };

/** How long an attempt may hold an email before another process may take it over. */
export const SENDING_LEASE_MS = 5 * 60_000;

/**
 * How long recording a sent email may wait for the database to come back. Well inside the lease: a
 * redelivery meanwhile finds the email still `sending` and waits.
 */
export const RECORD_SENT_WITHIN_MS = 60_000;
/** The same for recording a failed attempt (which releases the email to the next redelivery). */
const RECORD_FAILED_WITHIN_MS = RECORD_SENT_WITHIN_MS;

/** An email another process is sending right now: retried later, by redelivery. */
export class DeliveryInProgressError extends Error {
  override readonly name = 'DeliveryInProgressError';
}

const describe = (err: unknown): string => {
  if (!(err instanceof Error)) return String(err);
  const smtp = err as Error & { responseCode?: number; code?: string };
  return [smtp.code, smtp.responseCode, err.message].filter((x) => x !== undefined).join(' ');
};

/**
 * Send one email at most once: record it in the delivery log (unique per event, recipient and kind),
 * take it for an attempt, compose it (which may find that it must not be sent), send it, and record
 * the outcome. An email already sent or skipped is left alone, so a redelivered event sends nothing
 * twice. A failure to compose or send is recorded (attempts, last error) and thrown, so the event is
 * redelivered later. Once SMTP has taken the email, recording it as sent is tried again while the
 * database is away (`RECORD_SENT_WITHIN_MS`) and never turns into a failure: a sent email marked
 * failed would be sent again by the redelivery. If the database stays away longer, the email stays
 * `sending` and its lease keeps redeliveries off it (`SENDING_LEASE_MS`).
 * `compose` runs only for an attempt, which matters for emails whose link is made then.
 */
export const deliverEmail = async (
  deps: {
    deliveries: DeliveryRepository;
    transport: MailTransport;
    logger: Logger;
    outcomes: MailOutcomes;
    /** How recording a sent email waits out an outage, and the clock that bounds it (tests; default real time). */
    recordRetry?: { readonly sleep: (ms: number) => Promise<void>; readonly now: () => number };
  },
  input: {
    key: DeliveryKey;
    compose: () => Promise<TComposedMail | TSkip>;
    /** The delivery of the event this attempt is part of. */
    attempt: { readonly deliveryCount: number; readonly publishedAt: Date };
  },
): Promise<'sent' | 'skipped' | 'already-done'> => {
  const { key, attempt } = input;
  const fields = { kind: key.kind, eventId: key.eventId, sendId: key.sendId, auditId: key.auditId };
  let claim;
  try {
    claim = await deps.deliveries.claim(key, SENDING_LEASE_MS);
  } catch (err) {
    deps.outcomes.failed(key.kind, attempt.deliveryCount);
    throw err;
  }
  if (!claim.claimed) {
    if (claim.state === 'sending') {
      deps.outcomes.failed(key.kind, attempt.deliveryCount);
      throw new DeliveryInProgressError(`${key.kind} email is being sent elsewhere`);
    }
    deps.logger.info('email already handled; not sent again', { ...fields, state: claim.state });
    deps.outcomes.notSent(key.kind, 'duplicate');
    return 'already-done';
  }
  let messageId: string;
  let linkTokenHash: string | undefined;
  try {
    const composed = await input.compose();
    if ('skip' in composed) {
      await deps.deliveries.markSkipped(claim.id, composed.skip);
      deps.logger.info('email skipped', { ...fields, reason: composed.skip });
      deps.outcomes.notSent(key.kind, 'skipped');
      return 'skipped';
    }
    const { linkTokenHash: hash, ...mail } = composed;
    linkTokenHash = hash;
    ({ messageId } = await deps.transport.send(mail));
  } catch (err) {
    deps.outcomes.failed(key.kind, attempt.deliveryCount);
    // Recorded through an outage too: an email left `sending` is kept from every redelivery until its
    // lease (SENDING_LEASE_MS) runs out.
    await retryWhileDown(() => deps.deliveries.markFailed(claim.id, describe(err)), {
      withinMs: RECORD_FAILED_WITHIN_MS,
      ...deps.recordRetry,
    }).catch((markErr: unknown) =>
      deps.logger.error('could not record a failed email', { ...fields, err: markErr }),
    );
    throw err;
  }
  deps.outcomes.sent(key.kind, attempt.publishedAt);
  await retryWhileDown(() => deps.deliveries.markSent(claim.id, messageId, linkTokenHash), {
    withinMs: RECORD_SENT_WITHIN_MS,
    ...deps.recordRetry,
  });
  deps.logger.info('email sent', { ...fields, attempts: claim.attempts, messageId });
  return 'sent';
};
