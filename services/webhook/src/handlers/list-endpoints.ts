import { endpoint, type Endpoint } from '@esign/bus';
import { WebhookList } from '@esign/contracts';
import { listEndpoints } from '../domain/list-endpoints';
import type { WebhookServiceDeps } from './deps';

/** `webhook.list`: the account's endpoints. */
export const listEndpointsHandler = (deps: Pick<WebhookServiceDeps, 'store' | 'now'>): Endpoint =>
  endpoint(WebhookList, (request) =>
    listEndpoints({ store: deps.store, accountId: request.accountId, now: deps.now() }),
  );
