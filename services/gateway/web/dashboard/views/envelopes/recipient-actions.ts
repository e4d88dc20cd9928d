import { answerOf, ApiError } from '../../../shared/http';
import { h } from '../../../shared/dom';
import { client, type Envelope, type EnvelopeRecipient } from '../../api';
import { field, formatTime, message } from '../../ui';
import { newKey } from './keys';
import { ROLE_TEXT } from './progress';

// The sender's corrections of a pending envelope, per recipient: send their email again, or put
// another person in their place. Both are the API's operations through the dashboard's twins
// (session cookie and CSRF token), and both answer the envelope as it now stands.

const OPEN = new Set<EnvelopeRecipient['status']>(['waiting', 'notified', 'viewed']);

/**
 * A recipient who has not acted, while the envelope is pending: another person may take the place
 * (not in a send's envelope: its link went to that person; the sender cancels and sends again).
 */
export const canReplace = (envelope: Envelope, recipient: EnvelopeRecipient): boolean =>
  envelope.status === 'pending' && envelope.sendId === undefined && OPEN.has(recipient.status);

/**
 * A signer or approver whose turn has come (notified or viewed), who is emailed (an embedded one's
 * page comes from a signing URL the sender's site asks for): their email can be sent again.
 */
export const canResend = (envelope: Envelope, recipient: EnvelopeRecipient): boolean =>
  envelope.status === 'pending' &&
  recipient.role !== 'cc' &&
  !recipient.embedded &&
  (recipient.status === 'notified' || recipient.status === 'viewed');

const recipientPath = (envelopeId: string, recipientId: string) => ({
  path: { envelopeId, recipientId },
});

/** Sends the recipient a new email with a new link (their earlier links stop working). */
export const resendRecipient = (envelopeId: string, recipient: EnvelopeRecipient): Promise<Envelope> =>
  answerOf(
    client.POST('/api/envelopes/{envelopeId}/recipients/{recipientId}/resend', {
      params: {
        ...recipientPath(envelopeId, recipient.recipientId),
        header: { 'Idempotency-Key': newKey() },
      },
    }),
  );

/** Who held the place before this recipient, oldest first: "In place of Olga <olga@…> (2026-… UTC)". */
export const replacedPeople = (recipient: EnvelopeRecipient): HTMLElement | null => {
  const before = recipient.replaces ?? [];
  if (before.length === 0) return null;
  return h(
    'ul',
    { class: 'replaced-people', 'aria-label': `Who held ${recipient.name}'s place before` },
    ...before.map((person) =>
      h(
        'li',
        { class: 'hint' },
        `In place of ${person.name} <${person.email}>, replaced ${formatTime(person.replacedAt)}`,
      ),
    ),
  );
};

/**
 * The form that puts another person in a recipient's place: name and email, the server's 400 shown
 * as written with focus on the input it names. `onReplaced` gets the envelope as it now stands;
 * `onClose` runs when the sender gives up (Cancel or Escape).
 */
export const replaceForm = (options: {
  envelope: Envelope;
  recipient: EnvelopeRecipient;
  onReplaced: (envelope: Envelope, replaced: EnvelopeRecipient) => void;
  onClose: () => void;
}): HTMLElement => {
  const { envelope, recipient } = options;
  const name = h('input', {
    type: 'text',
    name: 'name',
    required: true,
    maxlength: 200,
    autocomplete: 'off',
  });
  const email = h('input', {
    type: 'email',
    name: 'email',
    required: true,
    maxlength: 254,
    autocomplete: 'off',
  });
  const status = h('div', { class: 'form-status' });
  const submit = h('button', { type: 'submit' }, 'Replace recipient');
  const cancel = h('button', { type: 'button', class: 'secondary' }, 'Cancel');
  const turnCame = recipient.status !== 'waiting';
  const what =
    recipient.role === 'cc'
      ? 'They receive the completed document instead.'
      : turnCame
        ? 'Their turn has come: the new person is emailed a link at once.'
        : `The new person is asked when group ${recipient.order}'s turn comes.`;
  const titleId = `replace-title-${recipient.recipientId}`;
  const form = h(
    'form',
    {
      class: 'card inline-form replace-form',
      'aria-labelledby': titleId,
      'data-recipient': recipient.recipientId,
      novalidate: true,
    },
    h('h2', { id: titleId }, `Replace ${recipient.name}`),
    h(
      'p',
      { class: 'hint' },
      `The new person takes this place: ${ROLE_TEXT[recipient.role].toLowerCase()}, group ${recipient.order}${recipient.fields.length ? ', the same fields' : ''}. Any link ${recipient.name} was sent stops working at once. ${what}`,
    ),
    field('Name', name),
    field('Email', email),
    status,
    h('div', { class: 'actions' }, submit, cancel),
  );

  cancel.addEventListener('click', options.onClose);
  form.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      options.onClose();
    }
  });

  // One Idempotency-Key per person asked for: a retry after no answer at all (the network) sends the
  // same key, so the replacement happens once; a changed name or email is a new request.
  let attempt: { name: string; email: string; key: string } | undefined;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const body = { name: name.value.trim(), email: email.value.trim() };
    const missing = !body.name ? name : !body.email ? email : undefined;
    if (missing) {
      status.replaceChildren(
        message('error', missing === name ? 'Give the new person’s name.' : 'Give the new person’s email.'),
      );
      missing.setAttribute('aria-invalid', 'true');
      missing.focus();
      return;
    }
    name.removeAttribute('aria-invalid');
    email.removeAttribute('aria-invalid');
    if (attempt?.name !== body.name || attempt.email !== body.email) attempt = { ...body, key: newKey() };
    submit.disabled = true;
    status.replaceChildren(message('info', 'Replacing…'));
    answerOf(
      client.POST('/api/envelopes/{envelopeId}/recipients/{recipientId}/replace', {
        params: {
          ...recipientPath(envelope.envelopeId, recipient.recipientId),
          header: { 'Idempotency-Key': attempt.key },
        },
        body,
      }),
    )
      .then((after) => options.onReplaced(after, recipient))
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.status !== 0) attempt = undefined;
        const text = err instanceof Error ? err.message : String(err);
        status.replaceChildren(message('error', `Not replaced: ${text}`));
        // A 400 names the input at fault first (`email: …`, `name: …`).
        const named = /^(name|email)\b/.exec(text)?.[1];
        const input = named === 'name' ? name : named === 'email' ? email : undefined;
        if (input) {
          input.setAttribute('aria-invalid', 'true');
          input.focus();
        } else submit.focus();
      })
      .finally(() => {
        submit.disabled = false;
      });
  });
  return form;
};
