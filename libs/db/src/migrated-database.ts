import type { Resource } from '@esign/telemetry';
import { createDatabase, migrateSchema, type Database, type TConcurrentIndex } from './index';

/**
 * A service's database as a resource of `startService`: the pool, with the service's schema migrated
 * before anything uses it; ready while a trivial query answers; closed last.
 */
export const migratedDatabase = <S extends Record<string, unknown>>(
  options: Parameters<typeof createDatabase<S>>[0] & {
    /** The service's own Postgres schema (its pgSchema). */
    schemaName: string;
    migrationsFolder: string;
    concurrentIndexes?: readonly TConcurrentIndex[];
  },
): Resource<Database<S>> => ({
  name: 'database',
  async start() {
    const database = createDatabase(options);
    try {
      await migrateSchema({
        pool: database.pool,
        schema: options.schemaName,
        migrationsFolder: options.migrationsFolder,
        concurrentIndexes: options.concurrentIndexes,
      });
    } catch (err) {
      await database.close().catch(() => undefined);
      throw err;
    }
    return database;
  },
  stop: (database) => database.close(),
  ready: (database) => database.ping(),
});
