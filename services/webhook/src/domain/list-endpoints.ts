import type { TWebhookEndpoint } from '@esign/contracts';
import type { WebhookStore } from '../db/store';
import { endpointView } from './endpoint-view';

/** The account's endpoints, newest first. */
export const listEndpoints = async (options: {
  store: WebhookStore;
  accountId: string;
  now: Date;
}): Promise<{ endpoints: TWebhookEndpoint[] }> => ({
  endpoints: (await options.store.listEndpoints(options.accountId)).map((row) =>
    endpointView(row, options.now),
  ),
});
