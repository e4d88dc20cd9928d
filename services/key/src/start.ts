import { fileURLToPath } from 'node:url';
import { busOptionsFrom, connectBus, type Bus } from '@esign/bus';
import { KeyRevoked } from '@esign/contracts';
import { createDatabase, databaseUnavailable, migrateSchema } from '@esign/db';
import { createLogger, startHealthServer, type Logger } from '@esign/telemetry';
import type { TKeyServiceConfig } from './config';
import { createKeyRepository } from './db/key-repository';
import { schema } from './db/schema';
import { createHandler } from './handlers/create';
import { revokeHandler } from './handlers/revoke';
import { verifyHandler } from './handlers/verify';

/** A running key service. */
export interface KeyService {
  /** Port of /healthz and /readyz. */
  readonly healthPort: number;
  /** Stop serving, finish in-flight requests, close connections. */
  stop(): Promise<void>;
}

const MIGRATIONS_FOLDER = fileURLToPath(new URL('../drizzle', import.meta.url));

/** Migrate the `key` schema, connect to NATS and serve `key.verify`, `key.create` and `key.revoke`. */
export const startKeyService = async (
  config: TKeyServiceConfig,
  options: { logger?: Logger } = {},
): Promise<KeyService> => {
  const logger = options.logger ?? createLogger({ service: 'key', level: config.LOG_LEVEL });
  const database = createDatabase({
    url: config.DATABASE_URL,
    schema,
    max: config.DB_POOL_MAX,
    applicationName: 'key',
  });
  let bus: Bus | undefined;
  try {
    await migrateSchema({ pool: database.pool, schema: 'key', migrationsFolder: MIGRATIONS_FOLDER });
    bus = await connectBus({ ...busOptionsFrom(config), name: 'key', logger });
    const connected = bus;
    const keys = createKeyRepository(database.db);
    await connected.serve(
      [
        verifyHandler({ keys }),
        createHandler({ keys }),
        revokeHandler({ keys, publishRevoked: (event) => connected.publish(KeyRevoked, event) }),
      ],
      { unavailable: databaseUnavailable },
    );
    const health = await startHealthServer({
      port: config.HEALTH_PORT,
      ready: async () => connected.isConnected() && (await database.ping()),
    });
    return {
      healthPort: health.port,
      async stop() {
        await health.close();
        await connected.drain();
        await database.close();
      },
    };
  } catch (err) {
    await bus?.drain().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw err;
  }
};
