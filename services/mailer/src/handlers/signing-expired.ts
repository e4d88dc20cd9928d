import type { EventHandler } from '@esign/bus';
import type { SigningExpired } from '@esign/contracts';
import { renderExpired } from '../domain/render-emails';
import type { DeliveryDeps } from './deps';
import { noticeHandler } from './notice-handler';

/** `events.signing.expired`: tell the sender that the request ended unsigned. */
export const signingExpiredHandler = (deps: DeliveryDeps): EventHandler<typeof SigningExpired> =>
  noticeHandler<typeof SigningExpired>(deps, (event) => ({
    kind: 'expired',
    to: { name: '', address: event.senderEmail },
    ...renderExpired(event),
  }));
