import { endpoint, type Endpoint } from '@esign/bus';
import { WebhookCreate } from '@esign/contracts';
import { createEndpoint } from '../domain/create-endpoint';
import type { WebhookServiceDeps } from './deps';

/** `webhook.create`: register an endpoint; the reply carries its secret, once. */
export const createEndpointHandler = (
  deps: Pick<WebhookServiceDeps, 'store' | 'secrets' | 'targets' | 'now'>,
): Endpoint =>
  endpoint(WebhookCreate, (request) =>
    createEndpoint({
      store: deps.store,
      secrets: deps.secrets,
      targets: deps.targets,
      now: deps.now(),
      request,
    }),
  );
