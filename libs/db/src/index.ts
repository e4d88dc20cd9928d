import { drizzle, type NodePgDatabase } from 'drizzle-orm/node-postgres';
import { migrate } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { inNewTrace } from '@esign/telemetry';

export interface Database<S extends Record<string, unknown>> {
  readonly pool: pg.Pool;
  readonly db: NodePgDatabase<S>;
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
}): Database<S> => {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    application_name: options.applicationName,
  });
  // Without a listener, an idle connection the server terminates would crash the process.
  pool.on('error', (err) => options.onIdleError?.(err));
  const db = drizzle(pool, { schema: options.schema });
  return {
    pool,
    db,
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

/**
 * Apply a service's migrations to its own schema. Replicas starting together take turns through an
 * advisory lock, so each migration runs once.
 */
export const migrateSchema = async (options: {
  pool: pg.Pool;
  schema: string;
  migrationsFolder: string;
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
    } finally {
      client.release();
    }
  });
