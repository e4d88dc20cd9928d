import { ServiceError } from '@esign/contracts';
import type { EndpointRow, WebhookStore } from '../db/store';

/** The `not_found` of an endpoint id that is unknown or another account's. */
export const webhookNotFound = (webhookId: string): ServiceError =>
  new ServiceError('not_found', `No webhook ${webhookId.slice(0, 40)}`);

/** The account's endpoint, or `not_found` (another account's endpoint is not found either). */
export const findOwnedEndpoint = async (options: {
  store: WebhookStore;
  accountId: string;
  webhookId: string;
}): Promise<EndpointRow> => {
  const row = await options.store.getEndpoint(options.accountId, options.webhookId);
  if (!row) throw webhookNotFound(options.webhookId);
  return row;
};
