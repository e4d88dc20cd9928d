import type { EventHandler } from '@esign/bus';
import type { SigningCanceled } from '@esign/contracts';
import { renderCanceled } from '../domain/render-emails';
import type { DeliveryDeps } from './deps';
import { noticeHandler } from './notice-handler';

/** `events.signing.canceled`: tell the recipient that the link no longer works. */
export const signingCanceledHandler = (deps: DeliveryDeps): EventHandler<typeof SigningCanceled> =>
  noticeHandler<typeof SigningCanceled>(deps, (event) => ({
    kind: 'canceled',
    to: { name: event.recipientName, address: event.recipientEmail },
    replyTo: { name: '', address: event.senderEmail },
    ...renderCanceled(event),
  }));
