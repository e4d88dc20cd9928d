import type { EventHandler } from '@esign/bus';
import type { SigningCanceled } from '@esign/contracts';
import { deliverEmail } from '../domain/deliver-email';
import { renderCanceled } from '../domain/render-emails';
import type { DeliveryDeps } from './deps';

/** `events.signing.canceled`: tell the recipient that the link no longer works. */
export const signingCanceledHandler =
  (deps: DeliveryDeps): EventHandler<typeof SigningCanceled> =>
  async (event, ctx) => {
    await deliverEmail(
      { ...deps, logger: ctx.logger },
      {
        key: {
          eventId: event.eventId,
          kind: 'canceled',
          recipient: event.recipientEmail,
          sendId: event.sendId,
          auditId: event.auditId,
        },
        compose: () =>
          Promise.resolve({
            to: { name: event.recipientName, address: event.recipientEmail },
            replyTo: { name: '', address: event.senderEmail },
            ...renderCanceled(event),
          }),
      },
    );
  };
