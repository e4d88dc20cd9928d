import { endpoint, type Endpoint } from '@esign/bus';
import { WebhookReplay } from '@esign/contracts';
import { replayEvent } from '../domain/replay-event';
import type { WebhookServiceDeps } from './deps';

/** `webhook.replay`: an earlier event to the endpoint again. */
export const replayEventHandler = (deps: Pick<WebhookServiceDeps, 'store' | 'now' | 'onQueued'>): Endpoint =>
  endpoint(WebhookReplay, (request) =>
    replayEvent({ ...request, store: deps.store, now: deps.now(), onQueued: deps.onQueued }),
  );
