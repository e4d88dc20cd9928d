import { MAX_WEBHOOK_URL_LENGTH } from '@esign/contracts/constants';
import { answerOf } from '../../../shared/http';
import { h } from '../../../shared/dom';
import { client, WEBHOOK_EVENT_TYPES } from '../../api';
import type { ViewContext } from '../../context';
import { hashOf } from '../../router';
import { field, formatTime, message } from '../../ui';
import { oneTimeSecretPanel } from '../dialogs';
import { renderWebhook } from './endpoint';
import { EVENT_HINTS, errorText, statusBadge, takeFlash } from './shared';

/** `#/webhooks`: the account's endpoints and the form that adds one; `#/webhooks/<id>`: one endpoint. */
export const renderWebhooks = async (context: ViewContext): Promise<void> => {
  if (context.route.param) {
    await renderWebhook(context, context.route.param);
    return;
  }
  const { main } = context;
  const status = h('div', { class: 'form-status' });
  const flash = takeFlash();
  if (flash) status.append(message('success', flash));
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
