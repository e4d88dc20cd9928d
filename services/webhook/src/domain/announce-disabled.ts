import { randomUUID } from 'node:crypto';
import type { TWebhookEndpointDisabledEvent } from '@esign/contracts';
import type { Logger } from '@esign/telemetry';
import type { EndpointRow } from '../db/store';

/**
 * The service disabled an endpoint (410, or failing too long): the reason is on the endpoint (GET
 * shows it); log it and announce it durably, for whoever tells the account (the mailer emails the
 * owner, once per `eventId`, which is the message id too).
 */
export const announceDisabled = async (options: {
  logger: Logger;
  publish: (event: TWebhookEndpointDisabledEvent) => Promise<void>;
  now: Date;
  endpoint: EndpointRow;
}): Promise<void> => {
  const { endpoint } = options;
  options.logger.warn('webhook endpoint disabled', {
    webhookId: endpoint.id,
    accountId: endpoint.accountId,
    reason: endpoint.disabledReason,
  });
  await options.publish({
    eventId: randomUUID(),
    accountId: endpoint.accountId,
    webhookId: endpoint.id,
    url: endpoint.url,
    reason: endpoint.disabledReason === 'gone' ? 'gone' : 'failing',
    failingSince: endpoint.failingSince?.toISOString() ?? null,
    disabledAt: (endpoint.disabledAt ?? options.now).toISOString(),
  });
};
