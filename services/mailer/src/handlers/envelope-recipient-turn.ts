import type { EventHandler } from '@esign/bus';
import type { EnvelopeRecipientTurn } from '@esign/contracts';
import { deliverEmail } from '../domain/deliver-email';
import { issueEnvelopeLink, type AttachEnvelopeLink } from '../domain/issue-envelope-link';
import { renderEnvelopeTurn } from '../domain/render-envelope-emails';
import type { DeliveryDeps } from './deps';

/**
 * `events.envelope.recipient-turn`: email a signer or approver a fresh link to their part of the
 * envelope (`replace` for their turn or a resend, `add` for a reminder). Nothing once the envelope has
 * expired, nor when document-store refuses the link (the envelope ended, or the recipient acted).
 */
export const envelopeRecipientTurnHandler =
  (
    deps: DeliveryDeps & {
      attachEnvelopeLink: AttachEnvelopeLink;
      publicBaseUrl: string;
      now: () => Date;
    },
  ): EventHandler<typeof EnvelopeRecipientTurn> =>
  async (event, ctx) => {
    const { recipient } = event;
    await deliverEmail(
      { ...deps, logger: ctx.logger },
      {
        attempt: ctx,
        key: {
          eventId: event.eventId,
          kind: event.reason === 'reminder' ? 'envelope-reminder' : 'envelope-turn',
          recipient: recipient.email,
          sendId: event.envelopeId,
          auditId: event.auditId,
        },
        compose: async () => {
          const role = recipient.role;
          if (role === 'cc') return { skip: 'a person in copy has nothing to act on' };
          if (new Date(event.expiresAt) <= deps.now()) return { skip: 'the envelope has expired' };
          const link = await issueEnvelopeLink(deps, {
            recipientId: recipient.recipientId,
            eventId: event.eventId,
            mode: event.reason === 'reminder' ? 'add' : 'replace',
          });
          if ('skip' in link) return link;
          if (new Date(link.expiresAt) <= deps.now()) return { skip: 'the envelope has expired' };
          return {
            to: { name: recipient.name, address: recipient.email },
            replyTo: { name: '', address: event.senderEmail },
            ...renderEnvelopeTurn({ event, role, link: link.url, expiresAt: link.expiresAt }),
          };
        },
      },
    );
  };
