import { ServiceError, type TWebhookDelivery } from '@esign/contracts';
import type { WebhookStore } from '../db/store';
import { deliveryView } from './delivery-view';
import { findOwnedEndpoint } from './find-owned-endpoint';
import { requireEnabled } from './require-enabled';

/**
 * Deliver an earlier event of the account to an enabled endpoint again: a new delivery of the same
 * event (so the same `webhook-id`), due at once.
 */
export const replayEvent = async (options: {
  store: WebhookStore;
  now: Date;
  onQueued: () => void;
  accountId: string;
  webhookId: string;
  eventId: string;
}): Promise<TWebhookDelivery> => {
  const { store } = options;
  const row = await findOwnedEndpoint(options);
  const event = await store.getEvent(options.accountId, options.eventId);
  if (!event) throw new ServiceError('not_found', `No event ${options.eventId.slice(0, 40)}`, 'eventId');
  requireEnabled(row);
  const delivery = await store.queueDelivery(event.id, row.id, 'replay', options.now);
  options.onQueued();
  return deliveryView({ ...delivery, eventType: event.type, attemptLog: [] });
};
