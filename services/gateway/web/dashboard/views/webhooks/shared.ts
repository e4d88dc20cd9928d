import { h } from '../../../shared/dom';
import type { Webhook, WebhookEventType } from '../../api';
import { formatTime } from '../../ui';

// Webhooks in the dashboard: the same endpoints as /api/v1/webhooks, through /api/webhooks with the
// session. Open to every plan (see the README): the events come from the dashboard's own signing and
// from signing links as well as from the API.

/** What each event type means, beside its box in the form. */
export const EVENT_HINTS: Record<WebhookEventType, string> = {
  'document.signed': 'every signature (API, dashboard or signing link)',
  'signing.viewed': 'a recipient opened a signing request',
  'signing.completed': 'a recipient signed',
  'signing.declined': 'a recipient declined',
  'signing.expired': 'a signing request expired unsigned',
  'envelope.sent': 'an envelope was sent',
  'recipient.notified': "an envelope recipient's turn came",
  'recipient.viewed': 'an envelope recipient was shown the document',
  'recipient.signed': 'an envelope signer signed',
  'recipient.approved': 'an envelope approver approved',
  'recipient.declined': 'an envelope recipient declined',
  'envelope.declined': 'an envelope ended: a recipient declined',
  'envelope.completed': 'an envelope completed (every signer and approver acted)',
  'envelope.canceled': 'an envelope was canceled',
  'envelope.expired': 'an envelope expired',
};

/** Why an endpoint is disabled, in words. */
export const disabledText = (webhook: Webhook): string => {
  const since = webhook.disabledAt ? ` (since ${formatTime(webhook.disabledAt)})` : '';
  switch (webhook.disabledReason) {
    case 'gone':
      return `Disabled: the receiver answered 410 Gone${since}`;
    case 'failing':
      return `Disabled: every delivery failed for 5 days${since}`;
    default:
      return `Disabled by you${since}`;
  }
};

/** The endpoint's state as a badge: enabled, failing, or why it is disabled. */
export const statusBadge = (webhook: Webhook): HTMLElement =>
  webhook.enabled
    ? h(
        'span',
        { class: `badge ${webhook.failingSince ? 'warning' : 'active'}` },
        webhook.failingSince ? `Enabled, failing since ${formatTime(webhook.failingSince)}` : 'Enabled',
      )
    : h('span', { class: 'badge revoked' }, disabledText(webhook));

/** A one-time flash message carried to the next view (after a delete). */
let flash = '';

/** Leave a message for the next view to show once. */
export const setFlash = (text: string): void => {
  flash = text;
};

/** The message left for this view, if any; it is shown once. */
export const takeFlash = (): string => {
  const text = flash;
  flash = '';
  return text;
};

export const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));
