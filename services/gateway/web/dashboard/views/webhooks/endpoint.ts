import { answerOf } from '../../../shared/http';
import { h } from '../../../shared/dom';
import { client, type Webhook, type WebhookDelivery } from '../../api';
import type { ViewContext } from '../../context';
import { navigate } from '../../router';
import { field, formatTime, message } from '../../ui';
import { confirmDialog, oneTimeSecretPanel } from '../dialogs';
import { errorText, setFlash, statusBadge } from './shared';

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

/** One endpoint: its settings, its delivery log, and what can be done with it. */
export const renderWebhook = async (context: ViewContext, id: string): Promise<void> => {
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
        setFlash(`The endpoint ${webhook?.url ?? ''} is deleted.`);
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
