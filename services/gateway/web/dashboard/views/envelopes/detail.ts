import { answerOf, ApiError } from '../../../shared/http';
import { h } from '../../../shared/dom';
import { client, envelopeDocumentUrl, type Envelope } from '../../api';
import type { ViewContext } from '../../context';
import { navigate } from '../../router';
import { formatTime, message } from '../../ui';
import { confirmDialog } from '../dialogs';
import { newKey } from './keys';
import { groupProgress, RECIPIENT_STATUS_TEXT, ROLE_TEXT, statusBadge } from './progress';

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

const recipientTable = (envelope: Envelope): HTMLElement =>
  h(
    'table',
    { class: 'responsive envelope-recipients' },
    h('caption', {}, 'Recipients'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['Name', 'Role', 'Group', 'Status', 'Notified', 'Viewed', 'Acted', 'Fields'].map((t) =>
          h('th', { scope: 'col' }, t),
        ),
      ),
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
              h('div', {}, recipient.name, h('div', { class: 'hint' }, recipient.email)),
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
          ),
        ),
    ),
  );

/** `#/envelope/<envelopeId>`: the envelope, its recipients, its document, and cancel while pending. */
export const renderEnvelope = async (context: ViewContext): Promise<void> => {
  const { main, route } = context;
  const envelopeId = route.param ?? '';
  const back = h('p', {}, h('a', { href: '#/envelopes' }, '← All envelopes'));
  const envelope = await answerOf(
    client.GET('/api/envelopes/{envelopeId}', { params: { path: { envelopeId } } }),
  ).catch((err: unknown) => {
    if (err instanceof ApiError && err.status === 404) return undefined;
    throw err;
  });
  if (!envelope) {
    main.append(back, h('h1', {}, 'Envelope not found'), message('error', `No envelope ${envelopeId}.`));
    return;
  }
  const complete = envelope.status === 'completed';
  const status = h('div', { class: 'form-status' });
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
        await answerOf(
          client.POST('/api/envelopes/{envelopeId}/cancel', {
            params: { path: { envelopeId }, header: { 'Idempotency-Key': newKey() } },
          }),
        );
        navigate(`#/envelope/${encodeURIComponent(envelopeId)}`);
      } catch (err) {
        cancel.disabled = false;
        status.replaceChildren(
          message('error', `Not canceled: ${err instanceof Error ? err.message : String(err)}`),
        );
        cancel.focus();
      }
    })();
  });

  main.append(
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
      recipientTable(envelope),
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
