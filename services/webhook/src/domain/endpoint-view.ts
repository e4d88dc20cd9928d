import type { TWebhookEndpoint } from '@esign/contracts';
import type { EndpointRow } from '../db/store';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** An endpoint as the API shows it: never its secrets, the previous one's end only while it lasts. */
export const endpointView = (row: EndpointRow, now: Date): TWebhookEndpoint => ({
  id: row.id,
  url: row.url,
  description: row.description,
  eventTypes: row.eventTypes as TWebhookEndpoint['eventTypes'],
  enabled: row.enabled,
  disabledReason: row.disabledReason as TWebhookEndpoint['disabledReason'],
  disabledAt: iso(row.disabledAt),
  failingSince: iso(row.failingSince),
  previousSecretExpiresAt:
    row.previousSecretExpiresAt && row.previousSecretExpiresAt > now
      ? row.previousSecretExpiresAt.toISOString()
      : null,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});
