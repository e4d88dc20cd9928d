import { endpoint, type Endpoint } from '@esign/bus';
import { WebhookSendTest } from '@esign/contracts';
import { sendTestEvent } from '../domain/send-test-event';
import type { WebhookServiceDeps } from './deps';

/** `webhook.send-test`: a `webhook.test` event to the endpoint. */
export const sendTestEventHandler = (
  deps: Pick<WebhookServiceDeps, 'store' | 'now' | 'onQueued'>,
): Endpoint =>
  endpoint(WebhookSendTest, (request) =>
    sendTestEvent({ ...request, store: deps.store, now: deps.now(), onQueued: deps.onQueued }),
  );
