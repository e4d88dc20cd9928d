import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { isConnectionError } from '@esign/contracts';
import { createOutageLog, inNewTrace, type Logger, type OutageLog } from '@esign/telemetry';

export interface Database<S extends Record<string, unknown>> {
  readonly pool: pg.Pool;
  readonly db: NodePgDatabase<S>;
  /** The database's outage log: lost connections open an outage, the next new connection closes it. */
  readonly outage: OutageLog;
  /** True when a trivial query answers. */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

/** A pool and a drizzle instance over it. */
export const createDatabase = <S extends Record<string, unknown>>(options: {
  url: string;
  schema: S;
  max?: number;
  applicationName: string;
  /** Told about connections the server dropped while idle (restart, failover); the pool replaces them. */
  onIdleError?: (err: Error) => void;
  /** Where the outage log writes (one line when connections are lost, one when a new one is made). */
  logger?: Logger;
  /** How long to wait for a connection (default 5 s). */
  connectTimeoutMs?: number;
}): Database<S> => {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    application_name: options.applicationName,
    // An unreachable server fails a request after this long instead of holding it until the caller
    // gives up (pg waits forever by default).
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
  });
  const outage = createOutageLog({
    logger: options.logger ?? silentLogger,
    dependency: 'database',
  });
  // Without a listener, an idle connection the server terminates would crash the process.
  pool.on('error', (err) => {
    outage.down(err);
    options.onIdleError?.(err);
  });
  // The pool listens for errors only on idle connections: a checked-out one (a transaction, a sweep's
  // advisory-lock session, the migration) whose socket the server resets emits `error` with no
  // listener, and that ends the process (issue 27: document-store died at each Postgres restart).
  // Every connection gets a listener for its whole life; the query in flight is rejected anyway, and
  // the pool drops a connection that is no longer queryable when it is released.
  pool.on('connect', (client) => {
    outage.up();
    client.on('error', (err) => outage.down(err));
  });
  const db = drizzle(pool, { schema: options.schema });
  return {
    pool,
    db,
    outage,
    async ping() {
      try {
        await pool.query('select 1');
        return true;
      } catch {
        return false;
      }
    },
    close: () => pool.end(),
  };
};

const silentLogger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
  child: () => silentLogger,
};

/** An index to build with CREATE INDEX CONCURRENTLY once the migrations are applied. */
export interface TConcurrentIndex {
  /** The index's name in the service's schema. */
  readonly name: string;
  /** `CREATE INDEX CONCURRENTLY IF NOT EXISTS "<name>" ON …` */
  readonly sql: string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Build indexes that must not block writes to a large table. drizzle's migrator runs all pending
 * migrations in one transaction, where CREATE INDEX CONCURRENTLY is not allowed, so a migration
 * declares such an index (the snapshot has it) but leaves its statement to this step, which runs on a
 * connection outside any transaction. An index a failed concurrent build left behind is invalid
 * (unused by queries, still maintained): it is dropped concurrently and built again. Replicas take
 * turns through an advisory lock taken with `pg_try_advisory_lock` and polling, never by waiting in
 * `pg_advisory_lock`: a session waiting there holds a snapshot that the concurrent build itself waits
 * for, which would deadlock the two.
 */
const buildIndexesConcurrently = async (
  client: pg.PoolClient,
  schema: string,
  indexes: readonly TConcurrentIndex[],
): Promise<void> => {
  const lock = `indexes:${schema}`;
  for (;;) {
    const { rows } = await client.query<{ ok: boolean }>('select pg_try_advisory_lock(hashtext($1)) as ok', [
      lock,
    ]);
    if (rows[0]?.ok) break;
    await sleep(250);
  }
  try {
    for (const index of indexes) {
      const { rows } = await client.query<{ valid: boolean }>(
        `select i.indisvalid as valid from pg_index i
           join pg_class c on c.oid = i.indexrelid
           join pg_namespace n on n.oid = c.relnamespace
         where n.nspname = $1 and c.relname = $2`,
        [schema, index.name],
      );
      if (rows[0]?.valid) continue;
      if (rows[0]) await client.query(`drop index concurrently if exists "${schema}"."${index.name}"`);
      await client.query(index.sql);
    }
  } finally {
    await client.query('select pg_advisory_unlock(hashtext($1))', [lock]);
  }
};

/**
 * Apply a service's migrations to its own schema, then build its `concurrentIndexes` (see
 * `buildIndexesConcurrently`). Replicas starting together take turns through an advisory lock, so each
 * migration runs once.
 */
export const migrateSchema = async (options: {
  pool: pg.Pool;
  schema: string;
  migrationsFolder: string;
  concurrentIndexes?: readonly TConcurrentIndex[];
}): Promise<void> =>
  // One trace for the whole migration rather than one per statement.
  inNewTrace(`migrate ${options.schema}`, {}, async () => {
    const client = await options.pool.connect();
    try {
      await client.query('select pg_advisory_lock(hashtext($1))', [`migrate:${options.schema}`]);
      try {
        await client.query(`create schema if not exists "${options.schema}"`);
        await migrate(drizzle(client), {
          migrationsFolder: options.migrationsFolder,
          migrationsSchema: options.schema,
          migrationsTable: '__migrations',
        });
      } finally {
        await client.query('select pg_advisory_unlock(hashtext($1))', [`migrate:${options.schema}`]);
      }
      if (options.concurrentIndexes?.length) {
        await buildIndexesConcurrently(client, options.schema, options.concurrentIndexes);
      }
    } finally {
      client.release();
    }
  });

/** SQLSTATEs of a server that is going away or cannot take the connection. */
const DOWN_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
const DOWN_MESSAGES = [
  /^timeout exceeded when trying to connect/,
  /^Connection terminated/,
  /is not queryable/,
  /not currently accepting connections/,
];

/**
 * Whether an error means the database is down or out of reach (refused, dropped, shutting down, out of
 * connections), as opposed to a query that is wrong. Looks through wrappers (drizzle's query error
 * keeps the driver's error as its `cause`).
 */
export const isDatabaseDown = (err: unknown): boolean => {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    if (isConnectionError(e)) return true;
    const code = (e as Error & { code?: unknown }).code;
    if (typeof code === 'string' && (DOWN_STATES.has(code) || code.startsWith('08'))) return true;
    if (DOWN_MESSAGES.some((re) => re.test(e instanceof Error ? e.message : ''))) return true;
  }
  return false;
};

/** For `bus.serve({ unavailable })`: a database outage is answered `unavailable`, not `internal`. */
export const databaseUnavailable = (err: unknown): string | undefined =>
  isDatabaseDown(err) ? 'the database is unavailable' : undefined;
export * from './migrated-database';
export * from './retry-while-down';
