import type { EventHandler } from '@esign/bus';
import type { SigningExpired } from '@esign/contracts';
import { deliverEmail } from '../domain/deliver-email';
import { renderExpired } from '../domain/render-emails';
import type { DeliveryDeps } from './deps';

/** `events.signing.expired`: tell the sender that the request ended unsigned. */
export const signingExpiredHandler =
  (deps: DeliveryDeps): EventHandler<typeof SigningExpired> =>
  async (event, ctx) => {
    await deliverEmail(
      { ...deps, logger: ctx.logger },
      {
        key: {
          eventId: event.eventId,
          kind: 'expired',
          recipient: event.senderEmail,
          sendId: event.sendId,
          auditId: event.auditId,
        },
        compose: () =>
          Promise.resolve({ to: { name: '', address: event.senderEmail }, ...renderExpired(event) }),
      },
    );
  };
