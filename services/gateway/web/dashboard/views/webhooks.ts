import { MAX_WEBHOOK_URL_LENGTH } from '@esign/contracts/constants';
import { answerOf } from '../../shared/http';
import {
  client,
  WEBHOOK_EVENT_TYPES,
  type Webhook,
  type WebhookDelivery,
  type WebhookEventType,
} from '../api';
import { h } from '../../shared/dom';
import { field, formatTime, message } from '../ui';
import type { ViewContext } from '../context';
import { hashOf, navigate } from '../router';
import { confirmDialog, oneTimeSecretPanel } from './dialogs';

// Webhooks in the dashboard: the same endpoints as /api/v1/webhooks, through /api/webhooks with the
// session. Open to every plan (see the README): the events come from the dashboard's own signing and
// from signing links as well as from the API.

const EVENT_HINTS: Record<WebhookEventType, string> = {
  'document.signed': 'every signature (API, dashboard or signing link)',
  'signing.viewed': 'a recipient opened a signing request',
  'signing.completed': 'a recipient signed',
  'signing.declined': 'a recipient declined',
  'signing.expired': 'a signing request expired unsigned',
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

const statusBadge = (webhook: Webhook): HTMLElement =>
  webhook.enabled
    ? h(
        'span',
        { class: `badge ${webhook.failingSince ? 'warning' : 'active'}` },
        webhook.failingSince ? `Enabled, failing since ${formatTime(webhook.failingSince)}` : 'Enabled',
      )
    : h('span', { class: 'badge revoked' }, disabledText(webhook));

/** A one-time flash message carried to the next view (after a delete). */
let flash = '';

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

export const renderWebhooks = async (context: ViewContext): Promise<void> => {
  if (context.route.param) {
    await renderWebhook(context, context.route.param);
    return;
  }
  const { main } = context;
  const status = h('div', { class: 'form-status' });
  if (flash) {
    status.append(message('success', flash));
    flash = '';
  }
  const oneTime = h('div', {});
  const list = h('div', { class: 'webhook-list' });
  const url = h('input', {
    type: 'text',
    name: 'url',
    inputmode: 'url',
    autocomplete: 'off',
    spellcheck: 'false',
    maxlength: MAX_WEBHOOK_URL_LENGTH,
    required: true,
    placeholder: 'https://example.com/esign/webhooks',
  });
  const description = h('input', { type: 'text', name: 'description', maxlength: 200, autocomplete: 'off' });
  const boxes = WEBHOOK_EVENT_TYPES.map((type) => {
    const box = h('input', { type: 'checkbox', name: 'eventTypes', value: type, checked: true });
    return { type, box };
  });
  const events = h(
    'fieldset',
    { class: 'checkboxes' },
    h('legend', {}, 'Events to send'),
    ...boxes.map(({ type, box }) =>
      h('label', {}, box, ' ', h('code', {}, type), h('span', { class: 'hint' }, ` — ${EVENT_HINTS[type]}`)),
    ),
  );
  const create = h('button', { type: 'submit' }, 'Add endpoint');
  const form = h(
    'form',
    { class: 'card inline-form', 'aria-labelledby': 'create-title', novalidate: true },
    h('h2', { id: 'create-title' }, 'Add an endpoint'),
    field('Endpoint URL', url, 'Where we POST the events: an https URL of your server.'),
    field('Description', description, 'What it is for (optional).'),
    events,
    h('div', { class: 'actions' }, create),
  );

  main.append(
    h('h1', {}, 'Webhooks'),
    h(
      'p',
      {},
      'We POST each event to your endpoints as JSON, signed with the Standard Webhooks scheme (headers webhook-id, webhook-timestamp, webhook-signature), and retry failures for about three days. Verify with the signing secret shown when you add an endpoint, e.g. with the standardwebhooks package.',
    ),
    status,
    oneTime,
    list,
    form,
  );

  const refresh = async (): Promise<void> => {
    const { webhooks } = await answerOf(client.GET('/api/webhooks'));
    if (webhooks.length === 0) {
      list.replaceChildren(h('p', { class: 'empty' }, 'No endpoints yet.'));
      return;
    }
    list.replaceChildren(
      h(
        'table',
        { class: 'responsive' },
        h('caption', {}, 'Your endpoints, newest first'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Endpoint', 'Events', 'Status', 'Created'].map((title) => h('th', { scope: 'col' }, title)),
          ),
        ),
        h(
          'tbody',
          {},
          ...webhooks.map((webhook) =>
            h(
              'tr',
              { 'data-webhook-id': webhook.id },
              h(
                'td',
                { 'data-label': 'Endpoint' },
                h(
                  'div',
                  {},
                  h('a', { href: hashOf(`webhooks/${webhook.id}`), class: 'mono' }, webhook.url),
                  webhook.description ? h('div', { class: 'hint' }, webhook.description) : null,
                ),
              ),
              h('td', { 'data-label': 'Events' }, webhook.eventTypes.join(', ')),
              h('td', { 'data-label': 'Status' }, statusBadge(webhook)),
              h('td', { 'data-label': 'Created' }, formatTime(webhook.createdAt)),
            ),
          ),
        ),
      ),
    );
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const chosen = boxes.filter(({ box }) => box.checked).map(({ type }) => type);
    if (!url.value.trim()) {
      status.replaceChildren(message('error', 'Give the URL of your endpoint.'));
      url.focus();
      return;
    }
    if (chosen.length === 0) {
      status.replaceChildren(message('error', 'Choose at least one event.'));
      boxes[0]?.box.focus();
      return;
    }
    create.disabled = true;
    status.replaceChildren();
    const about = description.value.trim();
    answerOf(
      client.POST('/api/webhooks', {
        body: { url: url.value.trim(), eventTypes: chosen, ...(about ? { description: about } : {}) },
      }),
    )
      .then(async (created) => {
        url.value = '';
        description.value = '';
        const panel = oneTimeSecretPanel({
          title: `New endpoint: ${created.webhook.url}`,
          label: 'Signing secret',
          value: created.secret,
          copyLabel: 'Copy secret',
          note: 'Copy this signing secret now and give it to your receiver: it verifies our signatures with it. It is shown only this once; you can rotate it later.',
          onDone: () => {
            panel.remove();
            list.querySelector('a')?.focus();
          },
        });
        oneTime.replaceChildren(panel);
        panel.querySelector('input')?.focus();
        panel.querySelector('input')?.select();
        await refresh();
      })
      .catch((err: unknown) => {
        status.replaceChildren(message('error', errorText(err)));
        url.focus();
      })
      .finally(() => {
        create.disabled = false;
      });
  });

  await refresh();
};

const attemptText = (delivery: WebhookDelivery): string => {
  const last = delivery.attemptLog.at(-1);
  if (!last) return delivery.nextAttemptAt ? `Due ${formatTime(delivery.nextAttemptAt)}` : '—';
  const answer = last.statusCode === null ? (last.error ?? 'no answer') : `HTTP ${last.statusCode}`;
  return `${answer} in ${last.latencyMs} ms`;
};

const STATUS_TEXT = { pending: 'Pending', succeeded: 'Delivered', failed: 'Failed' } as const;

const deliveryRow = (
  delivery: WebhookDelivery,
  onReplay: (delivery: WebhookDelivery, button: HTMLButtonElement) => void,
): HTMLElement => {
  const replay = h(
    'button',
    { type: 'button', class: 'secondary small', 'aria-label': `Replay ${delivery.eventId}` },
    'Replay',
  );
  replay.addEventListener('click', () => onReplay(delivery, replay));
  const last = delivery.attemptLog.at(-1);
  const attempts =
    delivery.attemptLog.length === 0
      ? null
      : h(
          'details',
          {},
          h(
            'summary',
            {},
            delivery.attemptLog.length === 1 ? 'Details' : `All ${delivery.attemptLog.length} attempts`,
          ),
          h(
            'ol',
            { class: 'attempts' },
            ...delivery.attemptLog.map((attempt) =>
              h(
                'li',
                {},
                `${formatTime(attempt.attemptedAt)}: ${
                  attempt.statusCode === null ? 'no answer' : `HTTP ${attempt.statusCode}`
                }, ${attempt.latencyMs} ms${attempt.error ? `, ${attempt.error}` : ''}`,
                attempt.responseExcerpt ? h('pre', { class: 'excerpt' }, attempt.responseExcerpt) : null,
              ),
            ),
          ),
        );
  return h(
    'tr',
    { 'data-delivery-id': delivery.id, 'data-event-id': delivery.eventId },
    h('td', { 'data-label': 'Created' }, formatTime(delivery.createdAt)),
    h(
      'td',
      { 'data-label': 'Event' },
      h(
        'div',
        {},
        h('code', {}, delivery.eventType),
        delivery.kind === 'event' ? null : h('span', { class: 'hint' }, ` (${delivery.kind})`),
        h('div', { class: 'hash' }, delivery.eventId),
      ),
    ),
    h(
      'td',
      { 'data-label': 'Status' },
      h(
        'span',
        {
          class: `badge ${delivery.status === 'succeeded' ? 'active' : delivery.status === 'failed' ? 'failed' : 'revoked'}`,
        },
        STATUS_TEXT[delivery.status],
      ),
    ),
    h('td', { 'data-label': 'Attempts' }, String(delivery.attempts)),
    h('td', { 'data-label': 'Last attempt' }, h('div', {}, attemptText(delivery), attempts)),
    h(
      'td',
      { 'data-label': 'Response' },
      last?.responseExcerpt ? h('code', { class: 'excerpt' }, last.responseExcerpt.slice(0, 120)) : '—',
    ),
    h('td', { 'data-label': 'Actions' }, replay),
  );
};

const renderWebhook = async (context: ViewContext, id: string): Promise<void> => {
  const { main } = context;
  const title = h('h1', {}, 'Webhook endpoint');
  const status = h('div', { class: 'form-status' });
  const oneTime = h('div', {});
  const facts = h('dl', { class: 'facts' });
  const log = h('div', {});
  const back = h('a', { href: '#/webhooks' }, '← All endpoints');
  const test = h('button', { type: 'button' }, 'Send test event');
  const toggle = h('button', { type: 'button', class: 'secondary' }, 'Disable');
  const remove = h('button', { type: 'button', class: 'danger' }, 'Delete endpoint');
  const overlap = h(
    'select',
    { name: 'overlap' },
    h('option', { value: '0' }, 'none: the old secret stops at once'),
    h('option', { value: '24', selected: true }, '24 hours'),
    h('option', { value: '72' }, '3 days'),
    h('option', { value: '168' }, '7 days'),
  );
  const rotate = h('button', { type: 'button', class: 'secondary' }, 'Rotate secret');
  const refreshLog = h('button', { type: 'button', class: 'secondary small' }, 'Refresh log');

  main.append(
    h('p', {}, back),
    title,
    status,
    oneTime,
    h(
      'section',
      { class: 'card', 'aria-label': 'Endpoint' },
      facts,
      h('div', { class: 'actions' }, test, toggle, remove),
    ),
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'rotate-title' },
      h('h2', { id: 'rotate-title' }, 'Rotate the signing secret'),
      h(
        'p',
        {},
        'A new secret is shown once. During the overlap every delivery carries two signatures, one with each secret, so your receiver verifies with either while you deploy the new one.',
      ),
      field('Keep the old secret signing for', overlap),
      h('div', { class: 'actions' }, rotate),
    ),
    h(
      'section',
      { 'aria-labelledby': 'log-title' },
      h('div', { class: 'title-row' }, h('h2', { id: 'log-title' }, 'Delivery log'), refreshLog),
      log,
    ),
  );

  let webhook: Webhook | undefined;
  const showEndpoint = (current: Webhook): void => {
    webhook = current;
    title.textContent = `Webhook: ${current.url}`;
    facts.replaceChildren(
      h('dt', {}, 'URL'),
      h('dd', { class: 'mono' }, current.url),
      ...(current.description ? [h('dt', {}, 'Description'), h('dd', {}, current.description)] : []),
      h('dt', {}, 'Events'),
      h('dd', {}, current.eventTypes.join(', ')),
      h('dt', {}, 'Status'),
      h('dd', {}, statusBadge(current)),
      h('dt', {}, 'Secret'),
      h(
        'dd',
        {},
        current.previousSecretExpiresAt
          ? `Rotated: the previous secret also signs until ${formatTime(current.previousSecretExpiresAt)}`
          : 'Shown once when created or rotated',
      ),
      h('dt', {}, 'Created'),
      h('dd', {}, formatTime(current.createdAt)),
    );
    toggle.textContent = current.enabled ? 'Disable' : 'Enable';
    test.disabled = !current.enabled;
  };

  const loadLog = async (): Promise<void> => {
    const { deliveries } = await answerOf(
      client.GET('/api/webhooks/{webhookId}/deliveries', {
        params: { path: { webhookId: id }, query: { limit: 20 } },
      }),
    );
    if (deliveries.length === 0) {
      log.replaceChildren(h('p', { class: 'empty' }, 'Nothing delivered yet. Send a test event.'));
      return;
    }
    log.replaceChildren(
      h(
        'table',
        { class: 'responsive deliveries' },
        h('caption', {}, 'The 20 latest deliveries, newest first'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Created', 'Event', 'Status', 'Attempts', 'Last attempt', 'Response', 'Actions'].map((t) =>
              h('th', { scope: 'col' }, t),
            ),
          ),
        ),
        h('tbody', {}, ...deliveries.map((delivery) => deliveryRow(delivery, replay))),
      ),
    );
  };

  const fail = (err: unknown): void => {
    status.replaceChildren(message('error', errorText(err)));
  };

  /** A queued delivery shows up as delivered a moment later: look again a few times. */
  const timers: ReturnType<typeof setTimeout>[] = [];
  const followUp = (): void => {
    for (const ms of [700, 2000, 5000]) {
      timers.push(
        setTimeout(() => {
          if (log.isConnected) void loadLog().catch(() => undefined);
        }, ms),
      );
    }
  };

  const replay = (delivery: WebhookDelivery, button: HTMLButtonElement): void => {
    button.disabled = true;
    answerOf(
      client.POST('/api/webhooks/{webhookId}/events/{eventId}/replay', {
        params: { path: { webhookId: id, eventId: delivery.eventId } },
      }),
    )
      .then(async () => {
        status.replaceChildren(message('success', `Event ${delivery.eventId} is queued again.`));
        await loadLog();
        followUp();
        refreshLog.focus();
      })
      .catch((err: unknown) => {
        fail(err);
        button.disabled = false;
      });
  };

  test.addEventListener('click', () => {
    test.disabled = true;
    answerOf(client.POST('/api/webhooks/{webhookId}/test', { params: { path: { webhookId: id } } }))
      .then(async (delivery) => {
        status.replaceChildren(
          message(
            'success',
            `A webhook.test event (${delivery.eventId}) is on its way; the log shows how it went.`,
          ),
        );
        await loadLog();
        followUp();
      })
      .catch(fail)
      .finally(() => {
        test.disabled = !webhook?.enabled;
        test.focus();
      });
  });

  toggle.addEventListener('click', () => {
    if (!webhook) return;
    const enable = !webhook.enabled;
    toggle.disabled = true;
    answerOf(
      client.PATCH('/api/webhooks/{webhookId}', {
        params: { path: { webhookId: id } },
        body: { enabled: enable },
      }),
    )
      .then((updated) => {
        showEndpoint(updated);
        status.replaceChildren(
          message(
            'success',
            enable
              ? 'The endpoint is enabled: deliveries that were waiting resume.'
              : 'The endpoint is disabled: nothing is sent to it until you enable it.',
          ),
        );
      })
      .catch(fail)
      .finally(() => {
        toggle.disabled = false;
        toggle.focus();
      });
  });

  remove.addEventListener('click', () => {
    void confirmDialog(
      `Delete the endpoint ${webhook?.url ?? ''}? Nothing more is sent to it, and its delivery log is removed. This cannot be undone.`,
      'Delete endpoint',
    ).then(async (yes) => {
      if (!yes) {
        remove.focus();
        return;
      }
      // No more looks at the log of an endpoint that is going away.
      for (const timer of timers.splice(0)) clearTimeout(timer);
      try {
        await answerOf(client.DELETE('/api/webhooks/{webhookId}', { params: { path: { webhookId: id } } }));
        flash = `The endpoint ${webhook?.url ?? ''} is deleted.`;
        navigate('#/webhooks');
      } catch (err) {
        fail(err);
      }
    });
  });

  rotate.addEventListener('click', () => {
    const hours = Number(overlap.value);
    void confirmDialog(
      hours === 0
        ? 'Rotate the secret with no overlap? Deliveries are signed with the new secret only, at once: a receiver still using the old one rejects them.'
        : `Rotate the secret? The old one keeps signing, alongside the new one, for ${overlap.selectedOptions[0]?.textContent ?? `${hours} hours`}.`,
      'Rotate secret',
    ).then(async (yes) => {
      if (!yes) {
        rotate.focus();
        return;
      }
      try {
        const rotated = await answerOf(
          client.POST('/api/webhooks/{webhookId}/rotate-secret', {
            params: { path: { webhookId: id } },
            body: { overlapHours: hours },
          }),
        );
        const panel = oneTimeSecretPanel({
          title: 'Rotated: your new signing secret',
          label: 'New signing secret',
          value: rotated.secret,
          copyLabel: 'Copy secret',
          note: rotated.previousSecretExpiresAt
            ? `Copy it now: it is shown only this once. Until ${formatTime(rotated.previousSecretExpiresAt)} every delivery is signed with both the previous and the new secret; after that with the new one only.`
            : 'Copy it now: it is shown only this once. From now on deliveries are signed with the new secret only.',
          onDone: () => {
            panel.remove();
            rotate.focus();
          },
        });
        oneTime.replaceChildren(panel);
        panel.querySelector('input')?.focus();
        panel.querySelector('input')?.select();
        showEndpoint(
          await answerOf(client.GET('/api/webhooks/{webhookId}', { params: { path: { webhookId: id } } })),
        );
      } catch (err) {
        fail(err);
      }
    });
  });

  refreshLog.addEventListener('click', () => {
    void loadLog().catch(fail);
  });

  showEndpoint(
    await answerOf(client.GET('/api/webhooks/{webhookId}', { params: { path: { webhookId: id } } })),
  );
  await loadLog();
};
