import { h } from '../../shared/dom';
import { field, message } from '../ui';

/** Copy a text: the Clipboard API where the page may use it, else the selection and execCommand. */
export const copyText = async (input: HTMLInputElement): Promise<boolean> => {
  try {
    await navigator.clipboard.writeText(input.value);
    return true;
  } catch {
    input.select();
    return document.execCommand('copy');
  }
};

/** A confirmation in a modal <dialog> (focus is trapped in it; Escape cancels). */
export const confirmDialog = (text: string, confirm: string): Promise<boolean> =>
  new Promise((resolve) => {
    const yes = h('button', { type: 'button', class: 'danger' }, confirm);
    const no = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
    const dialog = h(
      'dialog',
      { 'aria-labelledby': 'confirm-title' },
      h('h2', { id: 'confirm-title' }, 'Are you sure?'),
      h('p', {}, text),
      h('div', { class: 'actions' }, no, yes),
    );
    const close = (answer: boolean) => {
      dialog.close();
      dialog.remove();
      resolve(answer);
    };
    yes.addEventListener('click', () => close(true));
    no.addEventListener('click', () => close(false));
    dialog.addEventListener('cancel', (event) => {
      event.preventDefault();
      close(false);
    });
    document.body.append(dialog);
    dialog.showModal();
    no.focus();
  });

/**
 * The one-time view of a secret (an API key, a webhook signing secret): shown once with a copy button,
 * never retrievable again.
 */
export const oneTimeSecretPanel = (options: {
  title: string;
  label: string;
  value: string;
  note: string;
  copyLabel: string;
  onDone: () => void;
}): HTMLElement => {
  const input = h('input', {
    type: 'text',
    readonly: true,
    value: options.value,
    class: 'mono',
    spellcheck: 'false',
    autocomplete: 'off',
  });
  const copyStatus = h('span', { class: 'copy-status', role: 'status' });
  const copy = h('button', { type: 'button' }, options.copyLabel);
  copy.addEventListener('click', () => {
    void copyText(input).then((ok) => {
      copyStatus.textContent = ok ? 'Copied to the clipboard.' : 'Select it and copy it yourself.';
    });
  });
  const done = h('button', { type: 'button', class: 'secondary' }, 'Done: I have stored it');
  done.addEventListener('click', options.onDone);
  const titleId = `secret-${Math.random().toString(36).slice(2, 9)}`;
  return h(
    'section',
    { class: 'card new-key', 'aria-labelledby': titleId },
    h('h2', { id: titleId }, options.title),
    message('info', options.note),
    field(options.label, input),
    h('div', { class: 'actions' }, copy, done, copyStatus),
  );
};
