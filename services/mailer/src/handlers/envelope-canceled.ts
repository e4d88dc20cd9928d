import type { EventHandler } from '@esign/bus';
import type { EnvelopeCanceled } from '@esign/contracts';
import { renderEnvelopeCanceled } from '../domain/render-envelope-emails';
import type { DeliveryDeps } from './deps';
import { deliverEnvelopeEmails } from './deliver-envelope-emails';

/** `events.envelope.canceled`: each recipient whose turn had come (`notify`) learns their link is dead. */
export const envelopeCanceledHandler =
  (deps: DeliveryDeps): EventHandler<typeof EnvelopeCanceled> =>
  (event, ctx) =>
    deliverEnvelopeEmails(
      deps,
      ctx,
      event,
      event.notify.map((recipient) => {
        const to = { name: recipient.name, address: recipient.email };
        return {
          kind: 'envelope-canceled',
          to,
          compose: () =>
            Promise.resolve({
              to,
              replyTo: { name: '', address: event.senderEmail },
              ...renderEnvelopeCanceled({ event, to: recipient }),
            }),
        };
      }),
    );
