import { answerOf } from '../../shared/http';
import { client, type SentRequest } from '../api';
import { h } from '../../shared/dom';
import { formatTime } from '../ui';
import type { ViewContext } from '../context';
import { hashOf } from '../router';

const STATUS_TEXT: Record<SentRequest['status'], string> = {
  pending: 'Waiting for signature',
  signed: 'Signed',
  declined: 'Declined',
  canceled: 'Canceled',
  expired: 'Expired',
};

/** What happened last, in words: viewed or not while pending, when it ended otherwise. */
const progressOf = (request: SentRequest): string => {
  if (request.status === 'pending') {
    return `${request.viewedAt ? `Opened ${formatTime(request.viewedAt)}` : 'Not opened yet'} · expires ${formatTime(request.expiresAt)}`;
  }
  const when = formatTime(request.endedAt);
  return request.status === 'declined' && request.declineReason
    ? `${when}: “${request.declineReason}”`
    : when;
};

const row = (request: SentRequest): HTMLElement =>
  h(
    'tr',
    { 'data-send-id': request.sendId },
    h(
      'td',
      { 'data-label': 'Document' },
      h(
        'div',
        {},
        request.status === 'signed'
          ? h('a', { href: `#/document/${encodeURIComponent(request.auditId)}` }, request.fileName)
          : request.fileName,
        h('div', { class: 'hint' }, request.subject),
      ),
    ),
    h('td', { 'data-label': 'Recipient' }, `${request.recipientName} <${request.recipientEmail}>`),
    h(
      'td',
      { 'data-label': 'Status' },
      h('span', { class: `badge ${request.status}` }, STATUS_TEXT[request.status]),
    ),
    h('td', { 'data-label': 'Sent' }, formatTime(request.sentAt)),
    h('td', { 'data-label': 'Progress' }, progressOf(request)),
    h('td', { 'data-label': 'Audit ID' }, h('code', {}, request.auditId)),
  );

export const renderSent = async (context: ViewContext): Promise<void> => {
  const { main, route } = context;
  const requested = Number(route.query.get('page') ?? '1');
  const page = Number.isInteger(requested) && requested >= 1 ? requested : 1;
  const limit = 20;
  main.append(
    h('h1', {}, 'Sent for signing'),
    h(
      'p',
      {},
      'Documents you sent to someone else to sign (POST /api/v1/send), and where each one stands. ',
      h('a', { href: '/docs' }, 'How to send one'),
      '.',
    ),
  );
  const list = await answerOf(client.GET('/api/sends', { params: { query: { page, limit } } }));
  if (list.requests.length === 0) {
    main.append(h('p', { class: 'empty' }, page > 1 ? 'No more requests.' : 'Nothing sent for signing yet.'));
    return;
  }
  main.append(
    h(
      'table',
      { class: 'responsive sent' },
      h('caption', { class: 'visually-hidden' }, 'Requests sent for signing, newest first'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Document', 'Recipient', 'Status', 'Sent', 'Progress', 'Audit ID'].map((t) =>
            h('th', { scope: 'col' }, t),
          ),
        ),
      ),
      h('tbody', {}, ...list.requests.map(row)),
    ),
    h(
      'nav',
      { class: 'pager', 'aria-label': 'Pages' },
      page > 1
        ? h(
            'a',
            { href: hashOf('sent', { page: page - 1 }), class: 'button secondary', rel: 'prev' },
            'Previous',
          )
        : null,
      h(
        'span',
        { class: 'pager-summary' },
        `Page ${page} of ${Math.max(1, list.pages)} · ${list.total} request${list.total === 1 ? '' : 's'}`,
      ),
      page < list.pages
        ? h('a', { href: hashOf('sent', { page: page + 1 }), class: 'button secondary', rel: 'next' }, 'Next')
        : null,
    ),
  );
};
