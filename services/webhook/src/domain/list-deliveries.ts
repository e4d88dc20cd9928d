import type { TWebhookDelivery } from '@esign/contracts';
import type { WebhookStore } from '../db/store';
import { deliveryView } from './delivery-view';
import { findOwnedEndpoint } from './find-owned-endpoint';

/** An endpoint's deliveries, newest first, a page of `limit` before the cursor, with their attempts. */
export const listDeliveries = async (options: {
  store: WebhookStore;
  accountId: string;
  webhookId: string;
  limit: number;
  before?: string;
}): Promise<{ deliveries: TWebhookDelivery[]; nextCursor: string | null }> => {
  const row = await findOwnedEndpoint(options);
  const page = await options.store.listDeliveries(row.id, options.limit, options.before);
  return {
    deliveries: page.rows.map(deliveryView),
    nextCursor: page.more ? (page.rows.at(-1)?.id ?? null) : null,
  };
};
