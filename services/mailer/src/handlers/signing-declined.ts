import type { EventHandler } from '@esign/bus';
import type { SigningDeclined } from '@esign/contracts';
import { renderDeclined } from '../domain/render-emails';
import type { DeliveryDeps } from './deps';
import { noticeHandler } from './notice-handler';

/** `events.signing.declined`: tell the sender, with the recipient's reason. */
export const signingDeclinedHandler = (deps: DeliveryDeps): EventHandler<typeof SigningDeclined> =>
  noticeHandler<typeof SigningDeclined>(deps, (event) => ({
    kind: 'declined',
    to: { name: '', address: event.senderEmail },
    replyTo: { name: event.recipientName, address: event.recipientEmail },
    ...renderDeclined(event),
  }));
