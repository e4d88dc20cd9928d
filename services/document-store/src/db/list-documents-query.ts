import type pg from 'pg';

export type TDocumentSortColumn = 'signed_at' | 'file_name' | 'created_at';

/** Where a keyset page starts: after (or, descending, before) this sort key and id. */
export interface TListAfter {
  /** The sort column's value as `listDocumentsPage` returned it in `sortKey`. */
  readonly sortKey: string;
  readonly id: string;
}

export interface TDocumentQuery {
  readonly accountId: string;
  readonly limit: number;
  /** Rows to skip (page-based paging); 0 with `after`. */
  readonly offset: number;
  /** Keyset paging: the rows strictly after this position in the sort order. */
  readonly after?: TListAfter;
  /** Matched case-insensitively anywhere in the file name; `%`, `_` and `\` are literal. */
  readonly search?: string;
  /** Inclusive. */
  readonly signedFrom?: Date;
  /** Exclusive. */
  readonly signedBefore?: Date;
  readonly sortBy: TDocumentSortColumn;
  readonly sortDir: 'asc' | 'desc';
}

/** The columns a list shows, and the row's sort key as text (timestamps with microseconds, UTC). */
export interface TDocumentListRow {
  readonly id: string;
  readonly fileName: string;
  readonly signerName: string;
  readonly signerEmail: string;
  readonly signedAt: Date;
  readonly auditId: string;
  readonly fileHash: string;
  readonly ipAddress: string;
  readonly sortKey: string;
}

/**
 * Up to this many matches a filtered list's total is counted exactly (bounded: the count stops at
 * one more than this); beyond it the total is the planner's estimate and the reply says so. Every
 * account with at most this many documents always gets exact totals.
 */
export const EXACT_COUNT_LIMIT = 200;

/** `%`, `_` and the escape character itself are matched literally by LIKE after this. */
export const escapeLikePattern = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** Sort key as text that casts back to the same value: microseconds survive, unlike a JS Date. */
const sortKeyOf = (column: TDocumentSortColumn, table: string) =>
  column === 'file_name'
    ? `${table}.file_name`
    : `to_char(${table}.${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const SORT_KEY_TYPE = { signed_at: 'timestamptz', created_at: 'timestamptz', file_name: 'text' } as const;

/** The WHERE clause of a query and its parameters ($1 is always the account). */
const filterOf = (query: TDocumentQuery, withAfter: boolean) => {
  const values: unknown[] = [query.accountId];
  const conditions = ['account_id = $1'];
  const param = (value: unknown) => {
    values.push(value);
    return `$${values.length}`;
  };
  if (query.search) conditions.push(`file_name ilike ${param(`%${escapeLikePattern(query.search)}%`)}`);
  if (query.signedFrom) conditions.push(`signed_at >= ${param(query.signedFrom.toISOString())}`);
  if (query.signedBefore) conditions.push(`signed_at < ${param(query.signedBefore.toISOString())}`);
  if (withAfter && query.after) {
    // A row comparison is an index condition on (account_id, <sort column>, id).
    const op = query.sortDir === 'asc' ? '>' : '<';
    const key = `${param(query.after.sortKey)}::${SORT_KEY_TYPE[query.sortBy]}`;
    conditions.push(`(${query.sortBy}, id) ${op} (${key}, ${param(query.after.id)}::uuid)`);
  }
  return { where: conditions.join(' and '), values, param };
};

/**
 * One page (`limit` rows, plus one more to tell whether a next page exists). The page's ids come from
 * the (account, sort column, id) index alone (an index-only scan past `offset` rows), and only the
 * page's own rows are read from the table, so a deep `page` costs index entries, not rows. With a
 * search sorted by file name, the matches are found through the trigram index and sorted, instead of
 * walking the file-name index: names that share a word sort together, so such a walk can pass most of
 * the account before the first match.
 */
export const listDocumentsPage = async (
  pool: pg.Pool,
  query: TDocumentQuery,
): Promise<TDocumentListRow[]> => {
  const { where, values, param } = filterOf(query, true);
  const dir = query.sortDir === 'asc' ? 'asc' : 'desc';
  const col = query.sortBy;
  const limit = param(query.limit + 1);
  const offset = param(query.offset);
  const fence = query.search && col === 'file_name';
  const ids = fence
    ? `with matches as materialized (select id, ${col} from documents.documents where ${where})
       select id, ${col} from matches order by ${col} ${dir}, id ${dir} limit ${limit} offset ${offset}`
    : `select id, ${col} from documents.documents where ${where}
       order by ${col} ${dir}, id ${dir} limit ${limit} offset ${offset}`;
  const { rows } = await pool.query<TDocumentListRow>(
    `select d.id, d.file_name as "fileName", d.signer_name as "signerName", d.signer_email as "signerEmail",
       d.signed_at as "signedAt", d.audit_id as "auditId", d.file_hash as "fileHash",
       d.ip_address as "ipAddress", ${sortKeyOf(col, 'd')} as "sortKey"
     from (${ids}) p join documents.documents d on d.id = p.id
     order by p.${col} ${dir}, p.id ${dir}`,
    values,
  );
  return rows;
};

/**
 * The number of documents the query matches, ignoring paging. Without a search or a date range it is
 * the account's count (the sum of its counter slots, kept by a trigger in the insert's transaction):
 * exact and O(1). With a filter, the matches are counted exactly up to `EXACT_COUNT_LIMIT`; past it
 * the total is the planner's estimate of the filtered count (at least `EXACT_COUNT_LIMIT + 1`, at most
 * the account's count) and `exact` is false.
 */
export const countDocuments = async (
  pool: pg.Pool,
  query: TDocumentQuery,
): Promise<{ total: number; exact: boolean }> => {
  if (!query.search && !query.signedFrom && !query.signedBefore) {
    const { rows } = await pool.query<{ total: string | null }>(
      'select sum(count) as total from documents.account_document_counts where account_id = $1',
      [query.accountId],
    );
    return { total: Number(rows[0]?.total ?? 0), exact: true };
  }
  const { where, values } = filterOf(query, false);
  const { rows } = await pool.query<{ total: number }>(
    `select count(*)::int as total from (select 1 from documents.documents where ${where} limit ${EXACT_COUNT_LIMIT + 1}) m`,
    values,
  );
  const bounded = rows[0]?.total ?? 0;
  if (bounded <= EXACT_COUNT_LIMIT) return { total: bounded, exact: true };
  // The planner's estimate of the filtered count, capped by the account's exact count.
  const [plan, account] = await Promise.all([
    pool.query<{ 'QUERY PLAN': [{ Plan: { 'Plan Rows': number } }] }>(
      `explain (format json) select 1 from documents.documents where ${where}`,
      values,
    ),
    countDocuments(pool, { ...query, search: undefined, signedFrom: undefined, signedBefore: undefined }),
  ]);
  const planned = Math.round(plan.rows[0]?.['QUERY PLAN'][0].Plan['Plan Rows'] ?? 0);
  const estimate = Math.min(planned, account.total);
  return { total: Math.max(estimate, EXACT_COUNT_LIMIT + 1), exact: false };
};
