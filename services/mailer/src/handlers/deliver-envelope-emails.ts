import type { EventContext } from '@esign/bus';
import type { TMailbox, TOutgoingMail } from '../adapters/smtp-transport';
import { deliverEmail, type TSkip } from '../domain/deliver-email';
import type { DeliveryDeps } from './deps';

/** One email an envelope event asks for: its kind, to whom, and how to write it. */
export interface TEnvelopeEmail {
  /** The delivery log's kind: one email per event, recipient and kind. */
  readonly kind: string;
  readonly to: TMailbox;
  readonly compose: () => Promise<TOutgoingMail | TSkip>;
}

/**
 * Send each of an envelope event's emails once (the delivery log; `send_id` holds the envelope ID).
 * One address gets one email per kind however many parts it has in the envelope: the first email to
 * it wins (callers put the sender first). Each is recorded on its own, so a failure to one party
 * never sends another's twice; the first failure is thrown after every email was tried, and the
 * event is redelivered for the ones that failed.
 */
export const deliverEnvelopeEmails = async (
  deps: DeliveryDeps,
  ctx: Pick<EventContext, 'logger' | 'deliveryCount' | 'publishedAt'>,
  event: { eventId: string; envelopeId: string; auditId: string },
  emails: readonly TEnvelopeEmail[],
): Promise<void> => {
  const seen = new Set<string>();
  const failures: unknown[] = [];
  for (const email of emails) {
    const address = email.to.address.toLowerCase();
    if (seen.has(address)) continue;
    seen.add(address);
    try {
      await deliverEmail(
        { ...deps, logger: ctx.logger },
        {
          attempt: ctx,
          key: {
            eventId: event.eventId,
            kind: email.kind,
            recipient: email.to.address,
            sendId: event.envelopeId,
            auditId: event.auditId,
          },
          compose: email.compose,
        },
      );
    } catch (err) {
      failures.push(err);
    }
  }
  if (failures.length > 0) throw failures[0];
};
