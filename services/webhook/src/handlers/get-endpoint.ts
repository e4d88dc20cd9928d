import { endpoint, type Endpoint } from '@esign/bus';
import { WebhookGet } from '@esign/contracts';
import { getEndpoint } from '../domain/get-endpoint';
import type { WebhookServiceDeps } from './deps';

/** `webhook.get`: one endpoint of the account, `not_found` otherwise. */
export const getEndpointHandler = (deps: Pick<WebhookServiceDeps, 'store' | 'now'>): Endpoint =>
  endpoint(WebhookGet, (request) => getEndpoint({ ...request, store: deps.store, now: deps.now() }));
