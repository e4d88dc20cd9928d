import type { EventHandler } from '@esign/bus';
import type { SigningCompleted } from '@esign/contracts';
import { deliverEmail } from '../domain/deliver-email';
import { renderCompleted } from '../domain/render-emails';
import { prepareSignedCopy, type SignedPdfStore } from '../domain/signed-copy';
import type { DeliveryDeps } from './deps';

/**
 * `events.signing.completed`: the signed PDF to the sender and to the recipient, one email each
 * (each recorded on its own, so a failure to one party never sends the other's twice).
 */
export const signingCompletedHandler =
  (
    deps: DeliveryDeps & {
      pdfs: SignedPdfStore;
      attachmentMaxBytes: number;
      downloadTtlSeconds: number;
      now: () => Date;
    },
  ): EventHandler<typeof SigningCompleted> =>
  async (event, ctx) => {
    const parties = [
      { to: 'sender' as const, mailbox: { name: '', address: event.senderEmail } },
      { to: 'recipient' as const, mailbox: { name: event.recipientName, address: event.recipientEmail } },
    ];
    const failures: unknown[] = [];
    for (const party of parties) {
      try {
        await deliverEmail(
          { ...deps, logger: ctx.logger },
          {
            attempt: ctx,
            key: {
              eventId: event.eventId,
              kind: 'completed',
              recipient: party.mailbox.address,
              sendId: event.sendId,
              auditId: event.auditId,
            },
            compose: async () => {
              const { copy, attachment } = await prepareSignedCopy(deps, event);
              return {
                to: party.mailbox,
                ...renderCompleted({ event, to: party.to, copy }),
                attachments: attachment ? [attachment] : [],
              };
            },
          },
        );
      } catch (err) {
        failures.push(err);
      }
    }
    if (failures.length > 0) throw failures[0];
  };
