import { answerOf, ApiError } from '../../../shared/http';
import { h } from '../../../shared/dom';
import { client, envelopeDocumentUrl, type Envelope, type EnvelopeRecipient } from '../../api';
import type { ViewContext } from '../../context';
import { formatTime, message } from '../../ui';
import { confirmDialog } from '../dialogs';
import { newKey } from './keys';
import { groupProgress, RECIPIENT_STATUS_TEXT, ROLE_TEXT, statusBadge } from './progress';
import { canReplace, canResend, replacedPeople, replaceForm, resendRecipient } from './recipient-actions';

const FIELD_TEXT = {
  signature: 'signature',
  initials: 'initials',
  date: 'date',
  name: 'name',
  email: 'email',
  text: 'text',
  checkbox: 'checkbox',
} as const;

/** What a recipient fills, briefly: "signature, date (2 fields)". */
const fieldsOf = (recipient: Envelope['recipients'][number]): string =>
  recipient.fields.length === 0
    ? '—'
    : `${[...new Set(recipient.fields.map((f) => FIELD_TEXT[f.type]))].join(', ')} (${recipient.fields.length} field${recipient.fields.length === 1 ? '' : 's'})`;

/** What the detail's buttons do: each gets the recipient and the button pressed. */
interface RecipientActions {
  resend(recipient: EnvelopeRecipient, button: HTMLButtonElement): void;
  replace(recipient: EnvelopeRecipient, button: HTMLButtonElement): void;
}

/** Resend (their turn came, emailed) and Replace (not acted), while the envelope is pending. */
const actionsOf = (
  envelope: Envelope,
  recipient: EnvelopeRecipient,
  actions: RecipientActions,
): HTMLElement | null => {
  const buttons: HTMLButtonElement[] = [];
  if (canResend(envelope, recipient)) {
    const resend = h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        'aria-label': `Resend the email to ${recipient.name}`,
        'data-action': 'resend',
      },
      'Resend',
    );
    resend.addEventListener('click', () => actions.resend(recipient, resend));
    buttons.push(resend);
  }
  if (canReplace(envelope, recipient)) {
    const replace = h(
      'button',
      {
        type: 'button',
        class: 'secondary small',
        'aria-label': `Replace ${recipient.name}`,
        'aria-expanded': 'false',
        'aria-controls': 'replace-slot',
        'data-action': 'replace',
      },
      'Replace',
    );
    replace.addEventListener('click', () => actions.replace(recipient, replace));
    buttons.push(replace);
  }
  return buttons.length ? h('div', { class: 'row-actions' }, ...buttons) : null;
};

const recipientTable = (envelope: Envelope, actions: RecipientActions): HTMLElement => {
  const editable = envelope.status === 'pending';
  const columns = ['Name', 'Role', 'Group', 'Status', 'Notified', 'Viewed', 'Acted', 'Fields'];
  return h(
    'table',
    { class: 'responsive envelope-recipients' },
    h('caption', {}, 'Recipients'),
    h(
      'thead',
      {},
      h('tr', {}, ...(editable ? [...columns, 'Actions'] : columns).map((t) => h('th', { scope: 'col' }, t))),
    ),
    h(
      'tbody',
      {},
      ...[...envelope.recipients]
        .sort((a, b) => a.order - b.order)
        .map((recipient) =>
          h(
            'tr',
            { 'data-recipient': recipient.recipientId },
            h(
              'td',
              { 'data-label': 'Name' },
              h(
                'div',
                {},
                recipient.name,
                h('div', { class: 'hint' }, recipient.email),
                recipient.embedded
                  ? h(
                      'div',
                      { class: 'hint' },
                      'Embedded: signs on your site (',
                      h('a', { href: '#/embedding' }, 'Embedding'),
                      ')',
                    )
                  : null,
                replacedPeople(recipient),
              ),
            ),
            h('td', { 'data-label': 'Role' }, ROLE_TEXT[recipient.role]),
            h('td', { 'data-label': 'Group' }, String(recipient.order)),
            h(
              'td',
              { 'data-label': 'Status' },
              h(
                'div',
                {},
                h('span', { class: `badge r-${recipient.status}` }, RECIPIENT_STATUS_TEXT[recipient.status]),
                recipient.declineReason ? h('div', { class: 'hint' }, `“${recipient.declineReason}”`) : null,
              ),
            ),
            h('td', { 'data-label': 'Notified' }, formatTime(recipient.notifiedAt)),
            h('td', { 'data-label': 'Viewed' }, formatTime(recipient.viewedAt)),
            h('td', { 'data-label': 'Acted' }, formatTime(recipient.actedAt)),
            h('td', { 'data-label': 'Fields' }, fieldsOf(recipient)),
            editable ? h('td', { 'data-label': 'Actions' }, actionsOf(envelope, recipient, actions)) : null,
          ),
        ),
    ),
  );
};

const errorText = (err: unknown): string => (err instanceof Error ? err.message : String(err));

/**
 * `#/envelope/<envelopeId>`: the envelope, its recipients (with Resend and Replace while pending),
 * its document, and cancel while pending. After a change the view draws the envelope again as the
 * server now has it, with what happened said at the top.
 */
export const renderEnvelope = async (context: ViewContext): Promise<void> => {
  const { main, route } = context;
  const envelopeId = route.param ?? '';
  const back = h('p', {}, h('a', { href: '#/envelopes' }, '← All envelopes'));
  const load = () =>
    answerOf(client.GET('/api/envelopes/{envelopeId}', { params: { path: { envelopeId } } })).catch(
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 404) return undefined;
        throw err;
      },
    );
  const envelope = await load();
  if (!envelope) {
    main.append(back, h('h1', {}, 'Envelope not found'), message('error', `No envelope ${envelopeId}.`));
    return;
  }
  // The route may have changed while a change was on its way: then this view draws nothing more.
  const shown = location.hash;

  /** Draws the envelope again as the server has it now, saying what happened (focus on that). */
  const redraw = async (done: string, next?: Envelope): Promise<void> => {
    const fresh = next ?? (await load());
    if (location.hash !== shown) return;
    if (!fresh) {
      main.replaceChildren(
        back,
        h('h1', {}, 'Envelope not found'),
        message('error', `No envelope ${envelopeId}.`),
      );
      return;
    }
    draw(fresh);
    const note = message('success', done);
    note.setAttribute('tabindex', '-1');
    main.querySelector('.form-status')?.replaceChildren(note);
    note.focus();
  };

  const draw = (envelope: Envelope): void => {
    const complete = envelope.status === 'completed';
    const status = h('div', { class: 'form-status' });
    const replaceSlot = h('div', { id: 'replace-slot' });
    const ended: [string, string | null][] = [
      ['Completed', envelope.completedAt],
      ['Declined', envelope.declinedAt],
      ['Canceled', envelope.canceledAt],
      ['Expired', envelope.expiredAt],
    ];
    const facts: [string, Node | string][] = [
      ['Status', statusBadge(envelope.status)],
      ['Subject', envelope.subject],
      ...(envelope.message
        ? ([['Message', h('span', { class: 'message-text' }, envelope.message)]] as [string, Node][])
        : []),
      ['Envelope ID', h('code', {}, envelope.envelopeId)],
      // A send's envelope: its recipient signs through the send's link (no replacing).
      ...(envelope.sendId
        ? ([['Sent with POST /api/v1/send', h('code', {}, envelope.sendId)]] as [string, Node][])
        : []),
      ['Audit ID', h('code', {}, envelope.auditId)],
      ['Pages', String(envelope.pageCount)],
      ['Sent', formatTime(envelope.createdAt)],
      ['Expires', formatTime(envelope.expiresAt)],
      ...ended.filter(([, at]) => at).map(([what, at]): [string, string] => [what, formatTime(at)]),
      ...(envelope.declineReason ? ([['Reason', `“${envelope.declineReason}”`]] as [string, string][]) : []),
      ...(envelope.fileHash
        ? ([['File hash', h('code', { class: 'hash' }, envelope.fileHash)]] as [string, Node][])
        : []),
    ];

    const cancel =
      envelope.status === 'pending'
        ? h('button', { type: 'button', class: 'danger' }, 'Cancel envelope')
        : null;
    cancel?.addEventListener('click', () => {
      void (async () => {
        const sure = await confirmDialog(
          `Cancel “${envelope.fileName}”? Every link stops working at once and the recipients whose turn had come are told by email.`,
          'Cancel envelope',
        );
        if (!sure) {
          cancel.focus();
          return;
        }
        cancel.disabled = true;
        status.replaceChildren(message('info', 'Canceling…'));
        try {
          const after = await answerOf(
            client.POST('/api/envelopes/{envelopeId}/cancel', {
              params: { path: { envelopeId }, header: { 'Idempotency-Key': newKey() } },
            }),
          );
          await redraw('The envelope is canceled: every link has stopped working.', after);
        } catch (err) {
          cancel.disabled = false;
          status.replaceChildren(message('error', `Not canceled: ${errorText(err)}`));
          cancel.focus();
        }
      })();
    });

    /** The replace form open now, and the button that opened it (focus goes back there). */
    let opened: HTMLButtonElement | undefined;
    const closeReplace = (): void => {
      replaceSlot.replaceChildren();
      opened?.setAttribute('aria-expanded', 'false');
      opened?.focus();
      opened = undefined;
    };
    const actions: RecipientActions = {
      resend(recipient, button) {
        button.disabled = true;
        status.replaceChildren(message('info', `Sending the email to ${recipient.name} again…`));
        resendRecipient(envelopeId, recipient)
          .then((after) =>
            redraw(
              `A new email is on its way to ${recipient.name} <${recipient.email}>; the link in the earlier one no longer works.`,
              after,
            ),
          )
          .catch((err: unknown) => {
            button.disabled = false;
            status.replaceChildren(message('error', `Not sent again: ${errorText(err)}`));
            button.focus();
          });
      },
      replace(recipient, button) {
        const wasOpen = opened === button;
        if (opened) closeReplace();
        if (wasOpen) return;
        opened = button;
        button.setAttribute('aria-expanded', 'true');
        status.replaceChildren();
        const form = replaceForm({
          envelope,
          recipient,
          onClose: closeReplace,
          onReplaced: (after, replaced) => {
            const now = after.recipients.find((r) => r.recipientId === replaced.recipientId);
            void redraw(
              `${now?.name ?? 'The new person'} <${now?.email ?? ''}> now takes ${replaced.name}’s place${
                now?.status === 'notified' ? ' and is emailed a link' : ''
              }; ${replaced.name}’s link no longer works.`,
              after,
            );
          },
        });
        replaceSlot.replaceChildren(form);
        form.scrollIntoView({ block: 'nearest' });
        form.querySelector('input')?.focus();
      },
    };

    main.replaceChildren(
      back,
      h('h1', {}, envelope.fileName),
      h(
        'div',
        { class: 'actions' },
        h(
          'a',
          {
            href: envelopeDocumentUrl(envelope.envelopeId),
            download: '',
            class: 'button wrap',
            'data-testid': 'envelope-download',
          },
          complete ? 'Download completed document' : 'Download copy (marked NOT COMPLETE)',
        ),
        cancel,
      ),
      h(
        'p',
        { class: 'hint' },
        complete
          ? 'The completed document: every signature, the certificate of completion and the seal.'
          : 'Until every signer and approver has acted, the download is a copy with every page marked as not complete.',
      ),
      status,
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'progress-title' },
        h('h2', { id: 'progress-title' }, 'Progress'),
        groupProgress(envelope),
        recipientTable(envelope, actions),
        replaceSlot,
      ),
      h(
        'section',
        { class: 'card', 'aria-labelledby': 'facts-title' },
        h('h2', { id: 'facts-title' }, 'Details'),
        h(
          'dl',
          { class: 'facts' },
          ...facts.flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
        ),
      ),
    );
  };

  draw(envelope);
};
