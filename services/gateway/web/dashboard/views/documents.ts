import { answerOf } from '../../shared/http';
import { client, downloadUrl, type DocumentQuery, type DocumentRecord } from '../api';
import { h } from '../../shared/dom';
import { field, formatBytes, formatTime, message } from '../ui';
import type { ViewContext } from '../context';
import { hashOf, navigate } from '../router';

const SORTS = {
  newest: { sortBy: 'signed_at', sortDir: 'desc', label: 'Newest first' },
  oldest: { sortBy: 'signed_at', sortDir: 'asc', label: 'Oldest first' },
  'name-asc': { sortBy: 'file_name', sortDir: 'asc', label: 'File name A–Z' },
  'name-desc': { sortBy: 'file_name', sortDir: 'desc', label: 'File name Z–A' },
} as const satisfies Record<
  string,
  { sortBy: DocumentQuery['sortBy']; sortDir: 'asc' | 'desc'; label: string }
>;
type SortName = keyof typeof SORTS;

const PAGE_SIZES = [10, 20, 50, 100];

const isSort = (value: string | null): value is SortName => value !== null && value in SORTS;

/** The list's state lives in the hash (#/documents?search=…&from=…&to=…&sort=…&page=…), so back works. */
const stateOf = (query: URLSearchParams) => {
  const sort = query.get('sort');
  const page = Number(query.get('page') ?? '1');
  const limit = Number(query.get('limit') ?? '20');
  return {
    search: query.get('search') ?? '',
    from: query.get('from') ?? '',
    to: query.get('to') ?? '',
    sort: isSort(sort) ? sort : 'newest',
    page: Number.isInteger(page) && page >= 1 ? page : 1,
    limit: Number.isInteger(limit) && limit >= 1 && limit <= 100 ? limit : 20,
  };
};
type ListState = ReturnType<typeof stateOf>;

const hashFor = (state: ListState): string =>
  hashOf('documents', {
    search: state.search,
    from: state.from,
    to: state.to,
    sort: state.sort === 'newest' ? undefined : state.sort,
    page: state.page === 1 ? undefined : state.page,
    limit: state.limit === 20 ? undefined : state.limit,
  });

const documentRow = (doc: DocumentRecord): HTMLElement =>
  h(
    'tr',
    {},
    h(
      'td',
      { 'data-label': 'File' },
      h('a', { href: `#/document/${encodeURIComponent(doc.auditId)}` }, doc.fileName),
    ),
    h('td', { 'data-label': 'Signer' }, `${doc.signerName} <${doc.signerEmail}>`),
    h('td', { 'data-label': 'Signed' }, formatTime(doc.signedAt)),
    h('td', { 'data-label': 'Audit ID' }, h('code', {}, doc.auditId)),
    h(
      'td',
      { 'data-label': 'PDF' },
      h(
        'a',
        {
          href: downloadUrl(doc.auditId),
          download: '',
          'aria-label': `Download ${doc.fileName} (signed PDF)`,
        },
        'Download',
      ),
    ),
  );

export const renderDocuments = async (context: ViewContext): Promise<void> => {
  const { main, route } = context;
  const state = stateOf(route.query);

  const search = h('input', { type: 'search', name: 'search', value: state.search, maxlength: 200 });
  const from = h('input', { type: 'date', name: 'from', value: state.from });
  const to = h('input', { type: 'date', name: 'to', value: state.to });
  const sort = h(
    'select',
    { name: 'sort' },
    ...Object.entries(SORTS).map(([value, { label }]) =>
      h('option', { value, selected: value === state.sort }, label),
    ),
  );
  const limit = h(
    'select',
    { name: 'limit' },
    ...[...new Set([...PAGE_SIZES, state.limit])]
      .sort((a, b) => a - b)
      .map((size) => h('option', { value: size, selected: size === state.limit }, String(size))),
  );
  const filters = h(
    'form',
    { class: 'card filters', role: 'search', 'aria-label': 'Filter documents' },
    field('Search file names', search),
    field('Signed from', from),
    field('Signed to', to),
    field('Sort', sort),
    field('Per page', limit),
    h(
      'div',
      { class: 'actions' },
      h('button', { type: 'submit' }, 'Apply'),
      h('a', { href: '#/documents', class: 'button secondary' }, 'Clear'),
    ),
  );
  filters.addEventListener('submit', (event) => {
    event.preventDefault();
    navigate(
      hashFor({
        search: search.value.trim(),
        from: from.value,
        to: to.value,
        sort: isSort(sort.value) ? sort.value : 'newest',
        page: 1,
        limit: Number(limit.value),
      }),
    );
  });

  const results = h('div', { 'aria-live': 'polite' });
  main.append(
    h(
      'div',
      { class: 'title-row' },
      h('h1', {}, 'Documents'),
      h('a', { href: '#/sign', class: 'button' }, 'Sign a document'),
    ),
    filters,
    results,
  );

  const { sortBy, sortDir } = SORTS[state.sort];
  let list;
  try {
    list = await answerOf(
      client.GET('/api/documents', {
        params: {
          query: {
            search: state.search || undefined,
            dateFrom: state.from || undefined,
            dateTo: state.to || undefined,
            sortBy,
            sortDir,
            page: state.page,
            limit: state.limit,
          },
        },
      }),
    );
  } catch (err) {
    if (err instanceof Error && 'status' in err && err.status === 400) {
      results.replaceChildren(message('error', err.message));
      return;
    }
    throw err;
  }

  if (list.documents.length === 0) {
    const filtered = state.search || state.from || state.to;
    results.replaceChildren(
      h(
        'p',
        { class: 'empty' },
        filtered ? 'No document matches these filters.' : 'No signed documents yet. ',
        filtered ? '' : h('a', { href: '#/sign' }, 'Sign your first document'),
      ),
    );
    return;
  }
  const pages = Math.max(1, list.pages);
  const summary = `Page ${state.page} of ${list.totalExact ? pages : `about ${pages}`} · ${
    list.totalExact ? list.total : `about ${list.total}`
  } document${list.total === 1 ? '' : 's'}`;
  const pager = h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages' },
    state.page > 1
      ? h(
          'a',
          { href: hashFor({ ...state, page: state.page - 1 }), class: 'button secondary', rel: 'prev' },
          'Previous',
        )
      : null,
    h('span', { class: 'pager-summary' }, summary),
    list.nextCursor
      ? h(
          'a',
          { href: hashFor({ ...state, page: state.page + 1 }), class: 'button secondary', rel: 'next' },
          'Next',
        )
      : null,
  );
  results.replaceChildren(
    h(
      'table',
      { class: 'responsive documents' },
      h('caption', { class: 'visually-hidden' }, 'Signed documents'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...['File', 'Signer', 'Signed', 'Audit ID', 'PDF'].map((t) => h('th', { scope: 'col' }, t)),
        ),
      ),
      h('tbody', {}, ...list.documents.map(documentRow)),
    ),
    pager,
  );
};

const describeDetails = (details: Record<string, unknown>): string =>
  Object.entries(details)
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(' · ');

export const renderDocument = async (context: ViewContext): Promise<void> => {
  const { main, route } = context;
  const auditId = route.param ?? '';
  const doc = await answerOf(client.GET('/api/documents/{auditId}', { params: { path: { auditId } } })).catch(
    (err: unknown) => {
      if (err instanceof Error && 'status' in err && err.status === 404) return undefined;
      throw err;
    },
  );
  const back = h('p', {}, h('a', { href: '#/documents' }, '← All documents'));
  if (!doc) {
    main.append(
      back,
      h('h1', {}, 'Document not found'),
      message('error', `No document with audit ID ${auditId}.`),
    );
    return;
  }
  const facts: [string, Node | string][] = [
    ['Audit ID', h('code', {}, doc.auditId)],
    ['Signed', formatTime(doc.signedAt)],
    ['Signer', `${doc.signerName} <${doc.signerEmail}>`],
    ['IP address', doc.ipAddress],
    ['User agent', doc.userAgent],
    ['Pages', String(doc.pageCount)],
    ['Size', formatBytes(doc.size)],
    ['Signed file hash', h('code', { class: 'hash' }, doc.fileHash)],
    ['Original file hash', h('code', { class: 'hash' }, doc.originalHash)],
  ];
  main.append(
    back,
    h('h1', {}, doc.fileName),
    h(
      'p',
      {},
      h('a', { href: downloadUrl(doc.auditId), download: '', class: 'button' }, 'Download signed PDF'),
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
    h(
      'section',
      { class: 'card', 'aria-labelledby': 'log-title' },
      h('h2', { id: 'log-title' }, 'Audit log'),
      h(
        'p',
        { class: 'hint' },
        'Each entry is chained to the one before it by a SHA-256 hash, so the log cannot be changed unnoticed.',
      ),
      h(
        'ol',
        { class: 'audit-log' },
        ...doc.auditLog.map((entry) =>
          h(
            'li',
            {},
            h('strong', {}, entry.event),
            ' ',
            h('time', { datetime: entry.timestamp }, formatTime(entry.timestamp)),
            Object.keys(entry.details).length
              ? h('div', { class: 'details' }, describeDetails(entry.details))
              : null,
            h('div', { class: 'hash' }, `hash ${entry.hash.slice(0, 16)}…`),
          ),
        ),
      ),
    ),
  );
};
