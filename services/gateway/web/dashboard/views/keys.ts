import { LIVE_KEY_PREFIX } from '@esign/contracts/constants';
import { answerOf } from '../../shared/http';
import { client, type ApiKey, type NewApiKey } from '../api';
import { h } from '../../shared/dom';
import { field, formatTime, message } from '../ui';
import type { ViewContext } from '../context';
import { confirmDialog, copyText } from './dialogs';

/** The one-time view of a new key: shown once, with a copy button; never retrievable again. */
const newKeyPanel = (created: NewApiKey, onDone: () => void): HTMLElement => {
  const keyInput = h('input', {
    type: 'text',
    readonly: true,
    value: created.key,
    class: 'mono',
    spellcheck: 'false',
    autocomplete: 'off',
  });
  const copyStatus = h('span', { class: 'copy-status', role: 'status' });
  const copy = h('button', { type: 'button' }, 'Copy key');
  copy.addEventListener('click', () => {
    void copyText(keyInput).then((ok) => {
      copyStatus.textContent = ok ? 'Copied to the clipboard.' : 'Select the key and copy it yourself.';
    });
  });
  const done = h('button', { type: 'button', class: 'secondary' }, 'Done: I have stored it');
  done.addEventListener('click', onDone);
  const panel = h(
    'section',
    { class: 'card new-key', 'aria-labelledby': 'new-key-title' },
    h('h2', { id: 'new-key-title' }, `New key${created.name ? `: ${created.name}` : ''}`),
    message(
      'info',
      'Copy this key now and keep it somewhere safe. It is shown only this once: we store only a hash of it.',
    ),
    field('Your API key', keyInput),
    h('div', { class: 'actions' }, copy, done, copyStatus),
  );
  return panel;
};

const keyRow = (key: ApiKey, onRevoke: (key: ApiKey, button: HTMLButtonElement) => void) => {
  const label = key.name ?? 'Unnamed key';
  const revoke = h(
    'button',
    { type: 'button', class: 'danger small', 'aria-label': `Revoke ${label}` },
    'Revoke',
  );
  revoke.addEventListener('click', () => onRevoke(key, revoke));
  return h(
    'tr',
    { 'data-key-id': key.id },
    h('td', { 'data-label': 'Name' }, label),
    h('td', { 'data-label': 'Key' }, h('code', {}, `${key.prefix}…`)),
    h('td', { 'data-label': 'Created' }, formatTime(key.createdAt)),
    h('td', { 'data-label': 'Last used' }, key.lastUsedAt ? formatTime(key.lastUsedAt) : 'Never'),
    h(
      'td',
      { 'data-label': 'Status' },
      key.revoked
        ? h('span', { class: 'badge revoked' }, `Revoked ${formatTime(key.revokedAt)}`)
        : h('span', { class: 'badge active' }, 'Active'),
    ),
    h('td', { 'data-label': 'Actions' }, key.revoked ? null : revoke),
  );
};

export const renderKeys = async (context: ViewContext): Promise<void> => {
  const { main, session } = context;
  const status = h('div', { class: 'form-status' });
  const oneTime = h('div', {});
  const list = h('div', {});
  const name = h('input', { type: 'text', name: 'name', maxlength: 100, autocomplete: 'off' });
  const create = h('button', { type: 'submit' }, 'Create key');
  const form = h(
    'form',
    { class: 'card inline-form', 'aria-labelledby': 'create-title' },
    h('h2', { id: 'create-title' }, 'Create a key'),
    field('Name', name, 'What the key is for, e.g. "production server" (optional).'),
    h('div', { class: 'actions' }, create),
  );

  const planNote = session.usage.limits.apiAccess
    ? h('p', {}, `Send a key as "Authorization: Bearer ${LIVE_KEY_PREFIX}…" to /api/v1.`)
    : message(
        'info',
        `Your ${session.plan} plan has no API access: keys can be created, but /api/v1 refuses them until the account is on the Business plan. You can sign documents here in the dashboard.`,
      );

  main.append(h('h1', {}, 'API keys'), planNote, status, oneTime, form, list);

  const refresh = async (): Promise<void> => {
    const { keys } = await answerOf(client.GET('/api/keys'));
    if (keys.length === 0) {
      list.replaceChildren(h('p', { class: 'empty' }, 'No keys yet.'));
      return;
    }
    list.replaceChildren(
      h(
        'table',
        { class: 'responsive' },
        h('caption', {}, 'Your keys, newest first'),
        h(
          'thead',
          {},
          h(
            'tr',
            {},
            ...['Name', 'Key', 'Created', 'Last used', 'Status', 'Actions'].map((title) =>
              h('th', { scope: 'col' }, title),
            ),
          ),
        ),
        h('tbody', {}, ...keys.map((key) => keyRow(key, revoke))),
      ),
    );
  };

  const revoke = (key: ApiKey, button: HTMLButtonElement): void => {
    const label = key.name ?? 'Unnamed key';
    void confirmDialog(
      `Revoke "${label}" (${key.prefix}…)? Requests with it are refused from now on. This cannot be undone.`,
      'Revoke key',
    ).then(async (yes) => {
      if (!yes) {
        button.focus();
        return;
      }
      try {
        await answerOf(client.DELETE('/api/keys', { params: { query: { id: key.id } } }));
        status.replaceChildren(message('success', `Key "${label}" is revoked.`));
        await refresh();
        (list.querySelector('button') ?? name).focus();
      } catch (err) {
        status.replaceChildren(message('error', err instanceof Error ? err.message : String(err)));
      }
    });
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    create.disabled = true;
    status.replaceChildren();
    const keyName = name.value.trim();
    answerOf(client.POST('/api/keys', { body: keyName ? { name: keyName } : {} }))
      .then(async (created) => {
        name.value = '';
        const panel = newKeyPanel(created, () => {
          panel.remove();
          name.focus();
        });
        oneTime.replaceChildren(panel);
        panel.querySelector('input')?.focus();
        panel.querySelector('input')?.select();
        await refresh();
      })
      .catch((err: unknown) => {
        status.replaceChildren(message('error', err instanceof Error ? err.message : String(err)));
      })
      .finally(() => {
        create.disabled = false;
      });
  });

  await refresh();
};
