import type { TWebhookEndpoint } from '@esign/contracts';
import type { WebhookStore } from '../db/store';
import { endpointView } from './endpoint-view';
import { findOwnedEndpoint } from './find-owned-endpoint';

/** One of the account's endpoints. */
export const getEndpoint = async (options: {
  store: WebhookStore;
  accountId: string;
  webhookId: string;
  now: Date;
}): Promise<TWebhookEndpoint> => endpointView(await findOwnedEndpoint(options), options.now);
