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
import { freePort, startEmbeddedInfra } from '@esign/stack';

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  const env = process.env;
  if (env.NATS_URL && env.DATABASE_URL) return undefined;
  const dataDir = await mkdtemp(join(tmpdir(), 'esign-test-infra-'));
  // As root, embedded Postgres runs as the `postgres` user, who must be able to reach its data folder.
  await chmod(dataDir, 0o755);
  const infra = await startEmbeddedInfra({
    dataDir,
    natsUrl: env.NATS_URL ?? `nats://127.0.0.1:${await freePort()}`,
    databaseUrl: env.DATABASE_URL,
    postgresPort: await freePort(),
    // The tests start their own S3-protocol servers; this one only keeps it off a fixed port.
    s3Port: await freePort(),
  }).catch(async (err: unknown) => {
    await rm(dataDir, { recursive: true, force: true });
    throw err;
  });
  env.NATS_URL = infra.natsUrl;
  env.DATABASE_URL = infra.databaseUrl;
  const started = infra.started.filter((what) => !what.startsWith('embedded S3'));
  console.log(
    `NATS_URL/DATABASE_URL unset: started ${started.join(' and ')} for this run (set both to use your own)`,
  );
  return async () => {
    await infra.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
}
