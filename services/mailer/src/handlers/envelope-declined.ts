import type { EventHandler } from '@esign/bus';
import type { EnvelopeDeclined } from '@esign/contracts';
import { renderEnvelopeDeclined } from '../domain/render-envelope-emails';
import type { DeliveryDeps } from './deps';
import { deliverEnvelopeEmails } from './deliver-envelope-emails';

/**
 * `events.envelope.declined`: the sender (Reply-To the decliner) and everyone who had already signed
 * or approved (`notify`, Reply-To the sender) learn who declined and why. No document attached.
 */
export const envelopeDeclinedHandler =
  (deps: DeliveryDeps): EventHandler<typeof EnvelopeDeclined> =>
  (event, ctx) => {
    const decliner = { name: event.decliner.name, address: event.decliner.email };
    const sender = { name: '', address: event.senderEmail };
    return deliverEnvelopeEmails(deps, ctx, event, [
      {
        kind: 'envelope-declined',
        to: sender,
        compose: () =>
          Promise.resolve({
            to: sender,
            replyTo: decliner,
            ...renderEnvelopeDeclined({ event, to: 'sender' }),
          }),
      },
      ...event.notify.map((recipient) => {
        const to = { name: recipient.name, address: recipient.email };
        return {
          kind: 'envelope-declined',
          to,
          compose: () =>
            Promise.resolve({
              to,
              replyTo: sender,
              ...renderEnvelopeDeclined({ event, to: recipient }),
            }),
        };
      }),
    ]);
  };
