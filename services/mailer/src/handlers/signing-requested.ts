import type { EventHandler } from '@esign/bus';
import type { SigningRequested } from '@esign/contracts';
import { deliverEmail } from '../domain/deliver-email';
import { issueSigningLink, type AttachLink } from '../domain/issue-signing-link';
import { renderSigningRequest } from '../domain/render-emails';
import type { DeliveryDeps } from './deps';

/** `events.signing.requested`: email the recipient a fresh signing link (a resend replaces the old ones). */
export const signingRequestedHandler =
  (
    deps: DeliveryDeps & { attachLink: AttachLink; publicBaseUrl: string },
  ): EventHandler<typeof SigningRequested> =>
  async (event, ctx) => {
    await deliverEmail(
      { ...deps, logger: ctx.logger },
      {
        attempt: ctx,
        key: {
          eventId: event.eventId,
          kind: 'signing-request',
          recipient: event.recipientEmail,
          sendId: event.sendId,
          auditId: event.auditId,
        },
        compose: async () => {
          const link = await issueSigningLink(deps, {
            sendId: event.sendId,
            eventId: event.eventId,
            mode: 'replace',
          });
          if ('skip' in link) return link;
          return {
            to: { name: event.recipientName, address: event.recipientEmail },
            replyTo: { name: '', address: event.senderEmail },
            ...renderSigningRequest({ event, link: link.url, expiresAt: link.expiresAt }),
          };
        },
      },
    );
  };
