import type { WebhookStore } from '../db/store';
import { webhookNotFound } from './find-owned-endpoint';

/** Remove an endpoint with its delivery log (the foreign keys cascade). */
export const deleteEndpoint = async (options: {
  store: WebhookStore;
  accountId: string;
  webhookId: string;
}): Promise<{ id: string }> => {
  if (!(await options.store.deleteEndpoint(options.accountId, options.webhookId))) {
    throw webhookNotFound(options.webhookId);
  }
  return { id: options.webhookId };
};
