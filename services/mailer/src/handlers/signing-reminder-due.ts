import type { EventHandler } from '@esign/bus';
import type { SigningReminderDue } from '@esign/contracts';
import { deliverEmail } from '../domain/deliver-email';
import { issueSigningLink, type AttachLink } from '../domain/issue-signing-link';
import { renderReminder } from '../domain/render-emails';
import type { DeliveryDeps } from './deps';

/**
 * `events.signing.reminder-due`: remind the recipient with a fresh link added to the request's links.
 * Never after expiry: an event that arrives late (redelivered, or after downtime) is skipped.
 */
export const signingReminderDueHandler =
  (
    deps: DeliveryDeps & { attachLink: AttachLink; publicBaseUrl: string; now: () => Date },
  ): EventHandler<typeof SigningReminderDue> =>
  async (event, ctx) => {
    await deliverEmail(
      { ...deps, logger: ctx.logger },
      {
        attempt: ctx,
        key: {
          eventId: event.eventId,
          kind: 'reminder',
          recipient: event.recipientEmail,
          sendId: event.sendId,
          auditId: event.auditId,
        },
        compose: async () => {
          if (new Date(event.expiresAt) <= deps.now()) return { skip: 'the request has expired' };
          const link = await issueSigningLink(deps, {
            sendId: event.sendId,
            eventId: event.eventId,
            mode: 'add',
          });
          if ('skip' in link) return link;
          if (new Date(link.expiresAt) <= deps.now()) return { skip: 'the request has expired' };
          return {
            to: { name: event.recipientName, address: event.recipientEmail },
            replyTo: { name: '', address: event.senderEmail },
            ...renderReminder({ event, link: link.url, expiresAt: link.expiresAt }),
          };
        },
      },
    );
  };
