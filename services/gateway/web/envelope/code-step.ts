/**
 * The envelope page's one-time code step, for a recipient whose sender asked for an email code (the
 * recipient view's `codeRequired`): before anything of the document is asked for, the recipient
 * enters the 6-digit code emailed to them (`POST /envelope/api/verify-code`), or asks for a new one
 * (`POST /envelope/api/request-code`). Answers: 400 a wrong code (the gateway's words say how many
 * tries are left), 423 expired or locked (ask for a new code), 429 too many new codes, 410/404 the
 * link ended. Everything the server wrote is shown as text.
 */
import { h } from '../shared/dom';
import { answerOf, ApiError, type ApiClient } from '../shared/http';

const CODE_LENGTH = 6;
const ENTER_CODE = `Enter the ${CODE_LENGTH}-digit code from the email.`;

/**
 * Show the code step before `before` and wait until the code is accepted: true then (the step is
 * gone), false when the link ended meanwhile (`ended` has shown why).
 */
export const enterEmailCode = (input: {
  client: ApiClient;
  before: HTMLElement;
  email: string;
  /** Ends the page for a 410/404 answer (true when it did). */
  ended: (err: unknown) => boolean;
}): Promise<boolean> =>
  new Promise((resolve) => {
    const { client } = input;
    const codeInput = h('input', {
      id: 'code-input',
      name: 'code',
      type: 'text',
      autocomplete: 'one-time-code',
      inputmode: 'numeric',
      pattern: '[0-9]*',
      // Room for a pasted "123 456": spaces are dropped before it is sent.
      maxlength: 12,
      required: true,
      'aria-describedby': 'code-hint',
    });
    const errorLine = h('p', { id: 'code-error', class: 'error', role: 'alert', hidden: true });
    const statusLine = h('p', { id: 'code-status', class: 'hint', role: 'status', 'aria-live': 'polite' });
    const submit = h('button', { id: 'code-submit', type: 'submit', class: 'primary' }, 'Continue');
    const resend = h('button', { id: 'code-resend', type: 'button', class: 'secondary' }, 'Send a new code');
    const form = h(
      'form',
      { id: 'code-form', class: 'code-form', novalidate: true },
      h('label', { for: 'code-input' }, 'Code from the email'),
      codeInput,
      errorLine,
      statusLine,
      h('div', { class: 'actions' }, submit, resend),
    );
    const step = h(
      'section',
      { id: 'code-step', class: 'panel code-step', 'aria-labelledby': 'code-heading' },
      h('h2', { id: 'code-heading' }, 'Enter your code'),
      h(
        'p',
        { id: 'code-hint', class: 'hint' },
        `We emailed a ${CODE_LENGTH}-digit code to ${input.email}. Enter it to open the document. It works for 10 minutes.`,
      ),
      form,
    );
    input.before.before(step);

    const showError = (message: string) => {
      errorLine.textContent = message;
      errorLine.hidden = message === '';
      codeInput.setAttribute('aria-invalid', message === '' ? 'false' : 'true');
    };
    const setBusy = (busy: boolean) => {
      submit.disabled = busy;
      resend.disabled = busy;
    };
    const done = (unlocked: boolean) => {
      step.remove();
      resolve(unlocked);
    };
    const failed = (err: unknown) => {
      if (input.ended(err)) {
        done(false);
        return true;
      }
      // A 409: the link needs no code (any more): go on to the document.
      if (err instanceof ApiError && err.status === 409) {
        done(true);
        return true;
      }
      return false;
    };

    form.addEventListener('submit', (event) => {
      event.preventDefault();
      const code = codeInput.value.replace(/\s+/g, '');
      if (!new RegExp(`^[0-9]{${CODE_LENGTH}}$`).test(code)) {
        showError(ENTER_CODE);
        codeInput.focus();
        return;
      }
      showError('');
      statusLine.textContent = 'Checking the code…';
      setBusy(true);
      answerOf(client.POST('/envelope/api/verify-code', { body: { code } }))
        .then(() => done(true))
        .catch((err: unknown) => {
          setBusy(false);
          statusLine.textContent = '';
          if (failed(err)) return;
          showError(err instanceof ApiError ? err.message : 'Something went wrong. Please try again.');
          codeInput.value = '';
          // Expired or locked: only a new code helps.
          if (err instanceof ApiError && err.status === 423) resend.focus();
          else codeInput.focus();
        });
    });

    resend.addEventListener('click', () => {
      showError('');
      statusLine.textContent = 'Sending a new code…';
      setBusy(true);
      answerOf(client.POST('/envelope/api/request-code'))
        .then(() => {
          setBusy(false);
          codeInput.value = '';
          statusLine.textContent = `A new code is on its way to ${input.email}. Codes sent earlier no longer work.`;
          codeInput.focus();
        })
        .catch((err: unknown) => {
          setBusy(false);
          statusLine.textContent = '';
          if (failed(err)) return;
          showError(err instanceof ApiError ? err.message : 'Something went wrong. Please try again.');
        });
    });

    codeInput.focus();
  });
