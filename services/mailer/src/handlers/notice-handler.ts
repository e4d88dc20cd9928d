import type { EventHandler } from '@esign/bus';
import type { SigningCanceled, SigningDeclined, SigningExpired } from '@esign/contracts';
import type { TMailbox } from '../adapters/smtp-transport';
import { deliverEmail } from '../domain/deliver-email';
import type { TRenderedEmail } from '../domain/render-emails';
import type { DeliveryDeps } from './deps';

/** The events that end a request and tell one party about it with one plain email. */
type TNoticeEvent = typeof SigningCanceled | typeof SigningDeclined | typeof SigningExpired;

/** Who a notice goes to and what it says. */
export interface TNotice extends TRenderedEmail {
  /** The delivery log's kind: one email per event, recipient and kind. */
  readonly kind: string;
  readonly to: TMailbox;
  readonly replyTo?: TMailbox;
}

/**
 * A handler that sends one notice per event, once (the delivery log), to the party `notice` names.
 * The three end-of-request emails differ only in who is told and what is said.
 */
export const noticeHandler =
  <E extends TNoticeEvent>(
    deps: DeliveryDeps,
    notice: (event: Parameters<EventHandler<E>>[0]) => TNotice,
  ): EventHandler<E> =>
  async (event, ctx) => {
    const { kind, ...mail } = notice(event);
    await deliverEmail(
      { ...deps, logger: ctx.logger },
      {
        attempt: ctx,
        key: {
          eventId: event.eventId,
          kind,
          recipient: mail.to.address,
          sendId: event.sendId,
          auditId: event.auditId,
        },
        compose: () => Promise.resolve(mail),
      },
    );
  };
