import type { EventHandler } from '@esign/bus';
import { ServiceError, type WebhookEndpointDisabled } from '@esign/contracts';
import { deliverEmail } from '../domain/deliver-email';
import { renderWebhookDisabled } from '../domain/render-emails';
import type { DeliveryDeps } from './deps';

/** The account's email address from the key service (`key.get-usage`), or undefined when it is gone. */
export type AccountEmail = (accountId: string) => Promise<string | undefined>;

/** `AccountEmail` over a `key.get-usage` request: `not_found` is an account that no longer exists. */
export const accountEmailVia =
  (getUsage: (request: { accountId: string }) => Promise<{ email: string }>): AccountEmail =>
  async (accountId) => {
    try {
      return (await getUsage({ accountId })).email;
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'not_found') return undefined;
      throw err;
    }
  };

/**
 * `events.webhook.endpoint-disabled`: tell the account's owner that we stopped delivering to an
 * endpoint (its receiver answered 410, or every attempt failed for days), why, and how to re-enable it.
 * The address comes from the key service, which owns accounts; one email per event (the delivery log's
 * row is unique per event, recipient and kind), however often the event is redelivered. An account
 * that no longer exists: recorded as skipped.
 */
export const webhookEndpointDisabledHandler =
  (
    deps: DeliveryDeps & { accountEmail: AccountEmail; publicBaseUrl: string },
  ): EventHandler<typeof WebhookEndpointDisabled> =>
  async (event, ctx) => {
    // A lookup that fails (the key service is down) throws: the event is redelivered later.
    const email = await deps.accountEmail(event.accountId);
    await deliverEmail(
      { ...deps, logger: ctx.logger },
      {
        attempt: ctx,
        key: {
          eventId: event.eventId,
          kind: 'webhook-disabled',
          recipient: email ?? `account:${event.accountId}`,
          sendId: '',
          auditId: '',
        },
        compose: () => {
          if (email === undefined) return Promise.resolve({ skip: 'the account no longer exists' });
          const base = deps.publicBaseUrl.replace(/\/+$/, '');
          return Promise.resolve({
            to: { name: '', address: email },
            ...renderWebhookDisabled({
              event,
              dashboardLink: `${base}/dashboard#/webhooks/${encodeURIComponent(event.webhookId)}`,
            }),
          });
        },
      },
    );
  };
