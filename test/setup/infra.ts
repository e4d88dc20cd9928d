/**
 * Global setup of `pnpm test`: the NATS and Postgres every test run needs. With NATS_URL and
 * DATABASE_URL set (CI, a laptop with its own servers) it uses them and starts nothing. Without them it
 * starts what is missing the way `pnpm dev` does (nats-server from PATH, embedded Postgres), on free
 * ports and in a temporary folder, says so in one line, and stops it after the run. The URLs reach the
 * test workers through process.env: vitest forks its workers after the global setups, with this env.
 */
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startNats, startPostgres } from '@esign/stack';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const env = process.env;
  if (env.NATS_URL && env.DATABASE_URL) return undefined;
  const dataDir = await mkdtemp(join(tmpdir(), 'esign-test-infra-'));
  // As root, embedded Postgres runs as the `postgres` user, who must be able to reach its data folder.
  await chmod(dataDir, 0o755);
  const stops: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    await rm(dataDir, { recursive: true, force: true });
  };
  const started: string[] = [];
  try {
    if (!env.NATS_URL) {
      const url = `nats://127.0.0.1:${await freePort()}`;
      const nats = await startNats(url, join(dataDir, 'nats'));
      if (nats) stops.push(() => Promise.resolve(void nats.kill('SIGTERM')));
      env.NATS_URL = url;
      started.push(`nats-server (${url})`);
    }
    if (!env.DATABASE_URL) {
      const port = await freePort();
      const postgres = await startPostgres(join(dataDir, 'postgres'), port);
      stops.push(() => postgres.pg.stop());
      env.DATABASE_URL = postgres.url;
      started.push(`embedded Postgres (127.0.0.1:${port})`);
    }
  } catch (err) {
    await stopAll();
    throw err;
  }
  console.log(
    `NATS_URL/DATABASE_URL unset: started ${started.join(' and ')} for this run (set both to use your own)`,
  );
  return stopAll;
}
