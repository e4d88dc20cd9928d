import type { TWebhookEndpoint, WebhookUpdate } from '@esign/contracts';
import type { z } from 'zod';
import type { EndpointRow, WebhookStore } from '../db/store';
import { checkEndpointUrl, type TargetPolicy } from './check-endpoint-url';
import { endpointView } from './endpoint-view';
import { findOwnedEndpoint, webhookNotFound } from './find-owned-endpoint';

type TUpdateRequest = z.infer<(typeof WebhookUpdate)['request']>;

/** Enabling clears the reason and the failing streak; disabling by hand records `manual`, once. */
const enabledPatch = (request: TUpdateRequest, before: EndpointRow, now: Date) =>
  request.enabled === true
    ? { enabled: true, disabledReason: null, disabledAt: null, failingSince: null }
    : request.enabled === false && before.enabled
      ? { enabled: false, disabledReason: 'manual', disabledAt: now }
      : {};

/**
 * Change an endpoint's URL (checked again), event types, description or state. Enabling a disabled
 * endpoint makes its pending deliveries due at once (`onQueued` wakes the delivery loop).
 */
export const updateEndpoint = async (options: {
  store: WebhookStore;
  targets: TargetPolicy;
  now: Date;
  onQueued: () => void;
  request: TUpdateRequest;
}): Promise<TWebhookEndpoint> => {
  const { store, request, now } = options;
  const before = await findOwnedEndpoint({
    store,
    accountId: request.accountId,
    webhookId: request.webhookId,
  });
  if (request.url !== undefined) await checkEndpointUrl({ url: request.url, targets: options.targets });
  const row = await store.updateEndpoint(request.accountId, request.webhookId, {
    ...(request.url !== undefined ? { url: request.url } : {}),
    ...(request.eventTypes !== undefined ? { eventTypes: [...new Set(request.eventTypes)] } : {}),
    ...(request.description !== undefined ? { description: request.description } : {}),
    ...enabledPatch(request, before, now),
  });
  if (!row) throw webhookNotFound(request.webhookId);
  if (request.enabled === true && !before.enabled) {
    await store.resumeDeliveries(row.id, now);
    options.onQueued();
  }
  return endpointView(row, now);
};
