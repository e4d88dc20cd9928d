import { endpoint, type Endpoint } from '@esign/bus';
import { WebhookRotateSecret } from '@esign/contracts';
import { rotateSecret } from '../domain/rotate-secret';
import type { WebhookServiceDeps } from './deps';

/** `webhook.rotate-secret`: a new secret, the old one signing too during the overlap. */
export const rotateSecretHandler = (deps: Pick<WebhookServiceDeps, 'store' | 'secrets' | 'now'>): Endpoint =>
  endpoint(WebhookRotateSecret, (request) =>
    rotateSecret({ ...request, store: deps.store, secrets: deps.secrets, now: deps.now() }),
  );
