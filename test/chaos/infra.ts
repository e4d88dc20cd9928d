/**
 * Infrastructure the chaos harness owns, so that it may stop and start it without touching the shared
 * servers of this machine: a nats-server of its own (JetStream store in its own folder, a free port),
 * the embedded S3-protocol server (stopped and started again on the same port and folder), and either
 * embedded Postgres (which it may restart) or a test database on the shared server (never restarted).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, isListening, startEmbeddedInfra, type EmbeddedInfra } from '@esign/stack';
import { createTestDatabase, startTestS3, type TestDatabase, type TestS3 } from '@esign/testing';
import { startNatsCluster, type NatsCluster } from './cluster';

const waitFor = async (check: () => Promise<boolean>, what: string, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what} did not come up within ${timeoutMs} ms`);
};

/** A nats-server process with JetStream, stoppable and restartable with its store kept. */
export interface OwnNats {
  readonly url: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

const startOwnNats = async (dir: string): Promise<OwnNats> => {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async () => {
    child = spawn('nats-server', ['-js', '-a', '127.0.0.1', '-p', String(port), '-sd', join(dir, 'nats')], {
      stdio: 'ignore',
    });
    await waitFor(() => isListening('127.0.0.1', port), 'nats-server');
  };
  const stop = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const exited = once(c, 'exit');
    // SIGTERM: nats-server shuts down cleanly (the JetStream store is flushed and kept).
    c.kill('SIGTERM');
    await exited;
  };
  await start();
  return { url: `nats://127.0.0.1:${port}`, start, stop };
};

/** The S3-protocol server on a fixed port and folder, so that a restart serves the same objects. */
export interface OwnS3 {
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly region: string;
  stop(): Promise<void>;
  start(): Promise<void>;
}

const startOwnS3 = async (dir: string): Promise<OwnS3> => {
  const port = await freePort();
  const directory = join(dir, 's3');
  let server: TestS3 | undefined = await startTestS3({ port, directory });
  const first = server;
  return {
    endpoint: first.endpoint,
    accessKey: first.accessKey,
    secretKey: first.secretKey,
    region: first.region,
    async stop() {
      await server?.stop();
      server = undefined;
    },
    async start() {
      server ??= await startTestS3({ port, directory });
    },
  };
};

export interface OwnPostgres {
  readonly url: string;
  /** Whether stop()/start() work (embedded) or the database lives on the shared server. */
  readonly restartable: boolean;
  stop(): Promise<void>;
  start(): Promise<void>;
  dispose(): Promise<void>;
}

/** Embedded Postgres: stop() is its fast shutdown (SIGINT to the postmaster), start() the same data. */
const startEmbeddedPostgres = async (
  dir: string,
  natsUrl: string,
  s3Endpoint: string,
): Promise<OwnPostgres> => {
  const port = await freePort();
  const options = { dataDir: dir, natsUrl, s3Endpoint, postgresPort: port };
  let infra: EmbeddedInfra | undefined = await startEmbeddedInfra(options);
  const url = infra.databaseUrl;
  return {
    url,
    restartable: true,
    async stop() {
      await infra?.stop();
      infra = undefined;
    },
    async start() {
      infra ??= await startEmbeddedInfra(options);
    },
    async dispose() {
      await infra?.stop();
      infra = undefined;
    },
  };
};

const sharedTestDatabase = async (): Promise<OwnPostgres> => {
  // Never a container here: the harness is for this machine's Postgres (a database of its own on it).
  if (!process.env.DATABASE_URL)
    throw new Error('set DATABASE_URL (a Postgres server to create a test database on)');
  const db: TestDatabase = await createTestDatabase('esign_chaos');
  const refuse = () => Promise.reject(new Error('the shared Postgres is never restarted'));
  return { url: db.url, restartable: false, stop: refuse, start: refuse, dispose: () => db.drop() };
};

/** The cluster as an `OwnNats`: its URL is the three servers'; stop and start act on all three. */
const clusterAsOwnNats = (cluster: NatsCluster): OwnNats => ({
  url: cluster.url,
  stop: () => cluster.stop(),
  async start() {
    for (const s of cluster.servers) await cluster.start(s.name);
    await cluster.waitForMetaLeader();
  },
});

export interface ChaosInfra {
  readonly nats: OwnNats;
  /** The three-server cluster behind `nats`, when the scenario asked for one. */
  readonly natsCluster: NatsCluster | undefined;
  readonly s3: OwnS3;
  readonly postgres: OwnPostgres;
  stop(): Promise<void>;
}

/**
 * Infrastructure for one scenario; `embeddedPostgres` when the scenario restarts Postgres,
 * `natsCluster` for a three-server NATS cluster instead of one nats-server.
 */
export const startChaosInfra = async (options: {
  embeddedPostgres: boolean;
  natsCluster?: boolean;
}): Promise<ChaosInfra> => {
  const dir = await mkdtemp(join(tmpdir(), 'esign-chaos-'));
  // As root, embedded Postgres runs as the `postgres` user, who must be able to reach its folder.
  await chmod(dir, 0o755);
  const natsCluster = options.natsCluster ? await startNatsCluster(dir) : undefined;
  const nats = natsCluster ? clusterAsOwnNats(natsCluster) : await startOwnNats(dir);
  const s3 = await startOwnS3(dir);
  const postgres = options.embeddedPostgres
    ? await startEmbeddedPostgres(join(dir, 'pg'), nats.url, s3.endpoint)
    : await sharedTestDatabase();
  return {
    nats,
    natsCluster,
    s3,
    postgres,
    async stop() {
      await postgres.dispose().catch(() => undefined);
      await s3.stop().catch(() => undefined);
      await nats.stop().catch(() => undefined);
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    },
  };
};
