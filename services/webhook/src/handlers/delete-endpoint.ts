import { endpoint, type Endpoint } from '@esign/bus';
import { WebhookDelete } from '@esign/contracts';
import { deleteEndpoint } from '../domain/delete-endpoint';
import type { WebhookServiceDeps } from './deps';

/** `webhook.delete`: the endpoint and its delivery log. */
export const deleteEndpointHandler = (deps: Pick<WebhookServiceDeps, 'store'>): Endpoint =>
  endpoint(WebhookDelete, (request) => deleteEndpoint({ ...request, store: deps.store }));
