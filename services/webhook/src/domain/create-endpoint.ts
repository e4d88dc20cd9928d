import {
  MAX_WEBHOOKS_PER_ACCOUNT,
  ServiceError,
  type TWebhookEndpoint,
  type WebhookCreate,
} from '@esign/contracts';
import type { z } from 'zod';
import type { WebhookStore } from '../db/store';
import { checkEndpointUrl, type TargetPolicy } from './check-endpoint-url';
import { endpointView } from './endpoint-view';
import { newWebhookId } from './new-webhook-id';
import type { SecretBox } from './secret-box';
import { newWebhookSecret } from './signature';

/**
 * Register an endpoint: its URL checked, at most MAX_WEBHOOKS_PER_ACCOUNT per account (`conflict`),
 * its event types without repeats, a new secret sealed at rest and answered this once.
 */
export const createEndpoint = async (options: {
  store: WebhookStore;
  secrets: SecretBox;
  targets: TargetPolicy;
  now: Date;
  request: z.infer<(typeof WebhookCreate)['request']>;
}): Promise<{ endpoint: TWebhookEndpoint; secret: string }> => {
  const { store, request } = options;
  await checkEndpointUrl({ url: request.url, targets: options.targets });
  if ((await store.countEndpoints(request.accountId)) >= MAX_WEBHOOKS_PER_ACCOUNT) {
    throw new ServiceError('conflict', `at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks per account`);
  }
  const id = newWebhookId();
  const secret = newWebhookSecret();
  const row = await store.insertEndpoint({
    id,
    accountId: request.accountId,
    url: request.url,
    description: request.description,
    eventTypes: [...new Set(request.eventTypes)],
    secret: options.secrets.seal(secret, id),
  });
  return { endpoint: endpointView(row, options.now), secret };
};
