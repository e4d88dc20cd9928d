import type { EventHandler } from '@esign/bus';
import type { SigningDeclined } from '@esign/contracts';
import { deliverEmail } from '../domain/deliver-email';
import { renderDeclined } from '../domain/render-emails';
import type { DeliveryDeps } from './deps';

/** `events.signing.declined`: tell the sender, with the recipient's reason. */
export const signingDeclinedHandler =
  (deps: DeliveryDeps): EventHandler<typeof SigningDeclined> =>
  async (event, ctx) => {
    await deliverEmail(
      { ...deps, logger: ctx.logger },
      {
        key: {
          eventId: event.eventId,
          kind: 'declined',
          recipient: event.senderEmail,
          sendId: event.sendId,
          auditId: event.auditId,
        },
        compose: () =>
          Promise.resolve({
            to: { name: '', address: event.senderEmail },
            replyTo: { name: event.recipientName, address: event.recipientEmail },
            ...renderDeclined(event),
          }),
      },
    );
  };
