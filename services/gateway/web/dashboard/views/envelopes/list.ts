import { answerOf, ApiError } from '../../../shared/http';
import { h } from '../../../shared/dom';
import { client, type Envelope, type EnvelopeStatus } from '../../api';
import type { ViewContext } from '../../context';
import { hashOf, navigate } from '../../router';
import { field, formatTime, message } from '../../ui';
import { ENVELOPE_STATUS_TEXT, groupProgress, recipientLines, statusBadge } from './progress';

const STATUSES = Object.keys(ENVELOPE_STATUS_TEXT) as EnvelopeStatus[];
const isStatus = (value: string | null): value is EnvelopeStatus =>
  value !== null && (STATUSES as string[]).includes(value);

const row = (envelope: Envelope): HTMLElement =>
  h(
    'tr',
    { 'data-envelope-id': envelope.envelopeId },
    h(
      'td',
      { 'data-label': 'Document' },
      h(
        'div',
        {},
        h('a', { href: `#/envelope/${encodeURIComponent(envelope.envelopeId)}` }, envelope.fileName),
        h('div', { class: 'hint' }, envelope.subject),
      ),
    ),
    h('td', { 'data-label': 'Status' }, statusBadge(envelope.status)),
    h(
      'td',
      { 'data-label': 'Recipients' },
      h('div', { class: 'progress-cell' }, groupProgress(envelope), recipientLines(envelope)),
    ),
    h('td', { 'data-label': 'Sent' }, formatTime(envelope.createdAt)),
    h('td', { 'data-label': 'Expires' }, formatTime(envelope.expiresAt)),
  );

/** `#/envelopes?status=…&cursor=…`: newest first, a page at a time by the API's cursor. */
export const renderEnvelopes = async (context: ViewContext): Promise<void> => {
  const { main, route } = context;
  const requested = route.query.get('status');
  const status = isStatus(requested) ? requested : undefined;
  const cursor = route.query.get('cursor') ?? undefined;
  const requestedLimit = Number(route.query.get('limit') ?? '20');
  const limit =
    Number.isInteger(requestedLimit) && requestedLimit >= 1 && requestedLimit <= 100 ? requestedLimit : 20;
  /** The hash of this list with `status` and `limit` kept (the default limit left out). */
  const hashWith = (query: { cursor?: string } = {}): string =>
    hashOf('envelopes', { status, limit: limit === 20 ? undefined : limit, ...query });

  const statusSelect = h(
    'select',
    { name: 'status' },
    h('option', { value: '' }, 'All'),
    ...STATUSES.map((value) =>
      h('option', { value, selected: value === status }, ENVELOPE_STATUS_TEXT[value]),
    ),
  );
  const limitSelect = h(
    'select',
    { name: 'limit' },
    ...[...new Set([10, 20, 50, 100, limit])]
      .sort((a, b) => a - b)
      .map((size) => h('option', { value: size, selected: size === limit }, String(size))),
  );
  const filters = h(
    'form',
    { class: 'card filters', role: 'search', 'aria-label': 'Filter envelopes' },
    field('Status', statusSelect),
    field('Per page', limitSelect),
    h('div', { class: 'actions' }, h('button', { type: 'submit' }, 'Apply')),
  );
  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    const size = Number(limitSelect.value);
    navigate(hashOf('envelopes', { status: statusSelect.value, limit: size === 20 ? undefined : size }));
  });
  const results = h('div', { 'aria-live': 'polite' });
  main.append(
    h(
      'div',
      { class: 'title-row' },
      h('h1', {}, 'Envelopes'),
      h('a', { href: '#/new-envelope', class: 'button' }, 'New envelope'),
    ),
    h('p', {}, 'Documents sent to several people, in order: where each one stands, group by group.'),
    filters,
    results,
  );

  let list;
  try {
    list = await answerOf(client.GET('/api/envelopes', { params: { query: { status, cursor, limit } } }));
  } catch (err) {
    if (err instanceof ApiError && err.status === 400) {
      results.replaceChildren(
        message('error', err.message),
        h('p', {}, h('a', { href: hashWith() }, 'Back to the newest')),
      );
      return;
    }
    throw err;
  }
  const pager = h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    cursor ? h('a', { href: hashWith(), class: 'button secondary' }, 'Newest') : null,
    h(
      'span',
      { class: 'pager-summary' },
      `${list.envelopes.length} envelope${list.envelopes.length === 1 ? '' : 's'} on this page`,
    ),
    list.nextCursor
      ? h(
          'a',
          {
            href: hashWith({ cursor: list.nextCursor }),
            class: 'button secondary',
            rel: 'next',
          },
          'Older',
        )
      : null,
  );
  if (list.envelopes.length === 0) {
    results.replaceChildren(
      h(
        'p',
        { class: 'empty' },
        status ? `No ${ENVELOPE_STATUS_TEXT[status].toLowerCase()} envelopes. ` : 'No envelopes yet. ',
        status ? '' : h('a', { href: '#/new-envelope' }, 'Send your first envelope'),
      ),
      ...(cursor ? [pager] : []),
    );
    return;
  }
  results.replaceChildren(
    h(
      'table',
      { class: 'responsive envelopes' },
      h('caption', { class: 'visually-hidden' }, 'Envelopes, newest first'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['Document', 'Status', 'Recipients', 'Sent', 'Expires'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h('tbody', {}, ...list.envelopes.map(row)),
    ),
    pager,
  );
};
