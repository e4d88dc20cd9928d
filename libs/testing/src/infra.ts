import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * Test infrastructure. The services already running on a machine are used when their URLs are set
 * (NATS_URL, DATABASE_URL); otherwise testcontainers starts them (a laptop with Docker).
 */

/** A subject/stream prefix unique to one test run, so that runs can share a NATS server. */
export const uniqueBusPrefix = (label = 't'): string => `${label}${randomBytes(4).toString('hex')}.`;

let natsContainer: Promise<{ url: string; stop: () => Promise<void> }> | undefined;

/** URL of a NATS server with JetStream: NATS_URL, or a container started once per process. */
export const testNatsUrl = async (): Promise<string> => {
  if (process.env.NATS_URL) return process.env.NATS_URL;
  natsContainer ??= (async () => {
    const { GenericContainer, Wait } = await import('testcontainers');
    const c = await new GenericContainer('nats:2.10-alpine')
      .withCommand(['-js'])
      .withExposedPorts(4222)
      .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
      .start();
    return { url: `nats://${c.getHost()}:${c.getMappedPort(4222)}`, stop: async () => void (await c.stop()) };
  })();
  return (await natsContainer).url;
};

let pgContainer: Promise<string> | undefined;

const serverUrl = async (): Promise<string> => {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  pgContainer ??= (async () => {
    const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
    const c = await new PostgreSqlContainer('postgres:16-alpine').start();
    return c.getConnectionUri();
  })();
  return pgContainer;
};

export interface TestDatabase {
  readonly url: string;
  /**
   * Take the database away (refuse new connections, end the open ones), as an outage would, or give it
   * back.
   */
  setAvailable(available: boolean): Promise<void>;
  drop(): Promise<void>;
}

/** A fresh, empty database on the test server; `drop` removes it. */
export const createTestDatabase = async (label = 'esign_t'): Promise<TestDatabase> => {
  const base = new URL(await serverUrl());
  const name = `${label}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base.toString() });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(base.toString());
  url.pathname = `/${name}`;
  const asAdmin = async (work: (c: pg.Client) => Promise<unknown>) => {
    const c = new pg.Client({ connectionString: base.toString() });
    await c.connect();
    try {
      await work(c);
    } finally {
      await c.end();
    }
  };
  return {
    url: url.toString(),
    setAvailable: (available) =>
      asAdmin(async (c) => {
        await c.query(`alter database "${name}" with allow_connections ${available ? 'true' : 'false'}`);
        if (!available) {
          await c.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1', [name]);
        }
      }),
    async drop() {
      const c = new pg.Client({ connectionString: base.toString() });
      await c.connect();
      try {
        // A pool's end() resolves before its sockets close; forcing the drop at that moment kills those
        // backends and their clients raise an unhandled FATAL. Give them a moment to go on their own.
        const deadline = Date.now() + 5000;
        while (Date.now() < deadline) {
          const { rows } = await c.query<{ n: number }>(
            'select count(*)::int as n from pg_stat_activity where datname = $1',
            [name],
          );
          if (rows[0]?.n === 0) break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await c.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await c.end();
      }
    },
  };
};
