import { checkEmbedOrigin, MAX_EMBED_ORIGIN_LENGTH, MAX_EMBED_ORIGINS } from '@esign/contracts/embed-origin';
import { answerOf } from '../../shared/http';
import { h } from '../../shared/dom';
import { client } from '../api';
import type { ViewContext } from '../context';
import { field, message } from '../ui';
import { confirmDialog } from './dialogs';

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * `#/embedding`: the sites allowed to frame the account's embedded signing pages
 * (GET/PUT /api/account/embed-origins, the dashboard's twins of /api/v1/account/embed-origins).
 * An origin is checked here by the contracts' own `checkEmbedOrigin`, the check the API runs, so the
 * form refuses what the API would, in its words; the API checks again.
 */
export const renderEmbedding = async (context: ViewContext): Promise<void> => {
  const { main } = context;
  const status = h('div', { class: 'form-status' });
  const list = h('div', { class: 'origin-list' });
  const input = h('input', {
    type: 'text',
    name: 'origin',
    inputmode: 'url',
    autocomplete: 'off',
    spellcheck: 'false',
    maxlength: MAX_EMBED_ORIGIN_LENGTH,
    required: true,
    placeholder: 'https://app.example.com',
  });
  const add = h('button', { type: 'submit' }, 'Add origin');
  const form = h(
    'form',
    { class: 'card inline-form', 'aria-labelledby': 'add-origin-title', novalidate: true },
    h('h2', { id: 'add-origin-title' }, 'Add an origin'),
    field(
      'Origin',
      input,
      'https://host or https://host:port, without a path; http://localhost:port (or 127.0.0.1) for development.',
    ),
    h('div', { class: 'actions' }, add),
  );

  main.append(
    h('h1', {}, 'Embedding'),
    h(
      'p',
      {},
      'The sites allowed to show your signing pages in an iframe, for envelope recipients marked embedded (embedded: true in the API). They get no email: your site asks the API for a signing URL and frames it, and the page tells only these sites what happens. With no origin, embedded signing is off.',
    ),
    status,
    list,
    form,
  );

  let origins: string[] = [];

  const show = (): void => {
    if (origins.length === 0) {
      list.replaceChildren(h('p', { class: 'empty' }, 'No origins: embedded signing is off.'));
      return;
    }
    list.replaceChildren(
      h(
        'table',
        { class: 'responsive' },
        h('caption', {}, `Allowed origins (${origins.length} of at most ${MAX_EMBED_ORIGINS})`),
        h(
          'thead',
          {},
          h('tr', {}, ...['Origin', 'Actions'].map((title) => h('th', { scope: 'col' }, title))),
        ),
        h(
          'tbody',
          {},
          ...origins.map((origin) => {
            const remove = h(
              'button',
              { type: 'button', class: 'danger small', 'aria-label': `Remove ${origin}` },
              'Remove',
            );
            remove.addEventListener('click', () => void removeOrigin(origin, remove));
            return h(
              'tr',
              { 'data-origin': origin },
              h('td', { 'data-label': 'Origin' }, h('code', { class: 'origin' }, origin)),
              h('td', { 'data-label': 'Actions' }, remove),
            );
          }),
        ),
      ),
    );
  };

  const load = async (): Promise<string[]> =>
    (await answerOf(client.GET('/api/account/embed-origins'))).origins;

  /**
   * The API replaces the whole list: it is read again just before, so a change made meanwhile (another
   * tab) is kept rather than overwritten with what this page loaded.
   */
  const save = async (change: (current: string[]) => string[]): Promise<void> => {
    const next = change(await load());
    origins = (await answerOf(client.PUT('/api/account/embed-origins', { body: { origins: next } }))).origins;
    show();
  };

  const removeOrigin = async (origin: string, button: HTMLButtonElement): Promise<void> => {
    const sure = await confirmDialog(
      `Remove ${origin}? Its pages can no longer frame your signing pages (a page open now keeps working until it is loaded again).`,
      'Remove origin',
    );
    if (!sure) {
      button.focus();
      return;
    }
    button.disabled = true;
    try {
      await save((current) => current.filter((o) => o !== origin));
      status.replaceChildren(message('success', `${origin} is removed.`));
      (list.querySelector<HTMLButtonElement>('button') ?? input).focus();
    } catch (err) {
      button.disabled = false;
      status.replaceChildren(message('error', `Not removed: ${errorText(err)}`));
      button.focus();
    }
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const refuse = (text: string): void => {
      status.replaceChildren(message('error', text));
      input.setAttribute('aria-invalid', 'true');
      input.focus();
    };
    const typed = input.value.trim();
    if (!typed) {
      refuse('Give the origin of your site, such as https://app.example.com.');
      return;
    }
    const checked = checkEmbedOrigin(typed);
    if ('error' in checked) {
      refuse(checked.error);
      return;
    }
    if (origins.includes(checked.origin)) {
      refuse(`${checked.origin} is already allowed.`);
      return;
    }
    if (origins.length >= MAX_EMBED_ORIGINS) {
      refuse(`At most ${MAX_EMBED_ORIGINS} origins: remove one first.`);
      return;
    }
    input.removeAttribute('aria-invalid');
    add.disabled = true;
    status.replaceChildren(message('info', 'Saving…'));
    save((current) => (current.includes(checked.origin) ? current : [...current, checked.origin]))
      .then(() => {
        input.value = '';
        status.replaceChildren(
          message('success', `${checked.origin} is allowed to frame your signing pages.`),
        );
        input.focus();
      })
      // The API's 400 names the origin at fault (`origins[2]: …`): shown as it wrote it.
      .catch((err: unknown) => refuse(`Not added: ${errorText(err)}`))
      .finally(() => {
        add.disabled = false;
      });
  });

  origins = await load();
  show();
};
