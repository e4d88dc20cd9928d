import { endpoint, type Endpoint } from '@esign/bus';
import { WebhookUpdate } from '@esign/contracts';
import { updateEndpoint } from '../domain/update-endpoint';
import type { WebhookServiceDeps } from './deps';

/** `webhook.update`: URL, event types, description, enabled; re-enabling resumes pending deliveries. */
export const updateEndpointHandler = (
  deps: Pick<WebhookServiceDeps, 'store' | 'targets' | 'now' | 'onQueued'>,
): Endpoint =>
  endpoint(WebhookUpdate, (request) =>
    updateEndpoint({
      store: deps.store,
      targets: deps.targets,
      now: deps.now(),
      onQueued: deps.onQueued,
      request,
    }),
  );
