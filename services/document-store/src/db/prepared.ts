import type pg from 'pg';

/**
 * A statement that node-postgres prepares once per connection under `name` (it remembers the names
 * each client prepared): Postgres parses and plans it on its first use on a connection instead of on
 * every request. For the statements every signer's step sends; a name always goes with the same text.
 */
export const prepared = (name: string, text: string, values: unknown[]): pg.QueryConfig => ({
  name,
  text,
  values,
});
