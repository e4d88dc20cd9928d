import { sql } from 'drizzle-orm';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@esign/testing';
import { createDatabase, databaseUnavailable, isDatabaseDown } from '../src';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('db_down');
});
afterAll(() => database.drop());

const failure = (work: () => Promise<unknown>) =>
  work().then(
    () => {
      throw new Error('expected a failure');
    },
    (err: unknown) => err,
  );

/** Queries of this test's pool now sleeping on the server. */
const sleepingQueries = async (url: string): Promise<number> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
       where datname = current_database() and application_name = 'down-test' and state = 'active'
         and query like 'select pg_sleep%'`,
    );
    return rows[0]?.n ?? 0;
  } finally {
    await client.end();
  }
};

describe('isDatabaseDown', () => {
  it('recognises a server that refuses connections, also through drizzle', async () => {
    const closed = new URL(database.url);
    closed.port = '9';
    const db = createDatabase({ url: closed.toString(), schema: {}, applicationName: 'down-test' });
    try {
      expect(isDatabaseDown(await failure(() => db.pool.query('select 1')))).toBe(true);
      expect(isDatabaseDown(await failure(() => db.db.execute(sql`select 1`)))).toBe(true);
    } finally {
      await db.close();
    }
  });

  it('recognises a connection ended by the server and a database that takes no connections', async () => {
    const db = createDatabase({ url: database.url, schema: {}, applicationName: 'down-test' });
    try {
      const sleeping = failure(() => db.pool.query('select pg_sleep(10)'));
      // The query is under way on the server before the server ends its connection.
      await expect.poll(() => sleepingQueries(database.url), { timeout: 5000, interval: 20 }).toBe(1);
      await database.setAvailable(false);
      const ended = await sleeping;
      expect(isDatabaseDown(ended)).toBe(true);
      const refused = await failure(() => db.db.execute(sql`select 1`));
      expect(isDatabaseDown(refused)).toBe(true);
      expect(databaseUnavailable(refused)).toBe('the database is unavailable');
    } finally {
      await database.setAvailable(true);
      await db.close();
    }
  });

  it('leaves errors of the query itself alone', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const syntax = await failure(() => client.query('selec 1'));
      const missing = await failure(() => client.query('select * from no_such_table'));
      expect([isDatabaseDown(syntax), isDatabaseDown(missing)]).toEqual([false, false]);
      expect(databaseUnavailable(syntax)).toBeUndefined();
      expect(isDatabaseDown(new Error('something else'))).toBe(false);
    } finally {
      await client.end();
    }
  });
});
