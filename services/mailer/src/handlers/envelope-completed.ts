import type { EventHandler } from '@esign/bus';
import type { EnvelopeCompleted, TEventRecipient } from '@esign/contracts';
import { renderEnvelopeCompleted } from '../domain/render-envelope-emails';
import { prepareSignedCopy, type SignedPdfStore } from '../domain/signed-copy';
import type { DeliveryDeps } from './deps';
import { deliverEnvelopeEmails } from './deliver-envelope-emails';

/**
 * `events.envelope.completed`: the completed PDF (attached, or a download link when too large) to the
 * sender and to every recipient, people in copy included, one email each.
 */
export const envelopeCompletedHandler =
  (
    deps: DeliveryDeps & {
      pdfs: SignedPdfStore;
      attachmentMaxBytes: number;
      downloadTtlSeconds: number;
      now: () => Date;
    },
  ): EventHandler<typeof EnvelopeCompleted> =>
  async (event, ctx) => {
    const parties: { to: 'sender' | TEventRecipient; name: string; address: string }[] = [
      { to: 'sender', name: '', address: event.senderEmail },
      ...event.recipients.map((r) => ({ to: r, name: r.name, address: r.email })),
    ];
    await deliverEnvelopeEmails(
      deps,
      ctx,
      event,
      parties.map((party) => ({
        kind: 'envelope-completed',
        to: { name: party.name, address: party.address },
        compose: async () => {
          const { copy, attachment } = await prepareSignedCopy(deps, event);
          return {
            to: { name: party.name, address: party.address },
            ...(party.to === 'sender' ? {} : { replyTo: { name: '', address: event.senderEmail } }),
            ...renderEnvelopeCompleted({ event, to: party.to, copy }),
            attachments: attachment ? [attachment] : [],
          };
        },
      })),
    );
  };
