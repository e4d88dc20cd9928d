import { randomUUID } from 'node:crypto';
import type { TWebhookDelivery } from '@esign/contracts';
import type { WebhookStore } from '../db/store';
import { deliveryView } from './delivery-view';
import { publicEventId } from './events';
import { findOwnedEndpoint } from './find-owned-endpoint';
import { requireEnabled } from './require-enabled';

/** A `webhook.test` event of its own, delivered to this enabled endpoint only, due at once. */
export const sendTestEvent = async (options: {
  store: WebhookStore;
  now: Date;
  onQueued: () => void;
  accountId: string;
  webhookId: string;
}): Promise<TWebhookDelivery> => {
  const { store, now } = options;
  const row = await findOwnedEndpoint(options);
  requireEnabled(row);
  const id = publicEventId(randomUUID());
  await store.insertEvent({
    id,
    accountId: options.accountId,
    type: 'webhook.test',
    occurredAt: now,
    objectKey: null,
    data: {
      message: 'A test event from esign: your endpoint receives and verifies webhooks.',
      webhookId: row.id,
    },
  });
  const delivery = await store.queueDelivery(id, row.id, 'test', now);
  options.onQueued();
  return deliveryView({ ...delivery, eventType: 'webhook.test', attemptLog: [] });
};
