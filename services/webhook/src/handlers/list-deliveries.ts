import { endpoint, type Endpoint } from '@esign/bus';
import { WebhookDeliveries } from '@esign/contracts';
import { listDeliveries } from '../domain/list-deliveries';
import type { WebhookServiceDeps } from './deps';

/** `webhook.deliveries`: an endpoint's delivery log, a page at a time. */
export const listDeliveriesHandler = (deps: Pick<WebhookServiceDeps, 'store'>): Endpoint =>
  endpoint(WebhookDeliveries, (request) => listDeliveries({ ...request, store: deps.store }));
