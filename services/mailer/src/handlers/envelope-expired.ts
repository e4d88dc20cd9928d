import type { EventHandler } from '@esign/bus';
import type { EnvelopeExpired } from '@esign/contracts';
import { renderEnvelopeExpired } from '../domain/render-envelope-emails';
import type { DeliveryDeps } from './deps';
import { deliverEnvelopeEmails } from './deliver-envelope-emails';

/** `events.envelope.expired`: the sender learns the envelope ended before everyone acted, and who had not. */
export const envelopeExpiredHandler =
  (deps: DeliveryDeps): EventHandler<typeof EnvelopeExpired> =>
  (event, ctx) => {
    const to = { name: '', address: event.senderEmail };
    return deliverEnvelopeEmails(deps, ctx, event, [
      {
        kind: 'envelope-expired',
        to,
        compose: () => Promise.resolve({ to, ...renderEnvelopeExpired(event) }),
      },
    ]);
  };
