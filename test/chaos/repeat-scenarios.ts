/**
 * Repeated faults of one dependency (issue 27: "no exit on a dependency fault"). Each runs every
 * service (template, webhook and the mailer too) under the signing burst, takes its dependency away
 * again and again, and holds only if every service process is the same at the end as at the start
 * (`samePids`; an exit during the scenario fails it at once) and the usual audit holds. Restarts come
 * every 1-2 s, so each scenario's fault phase stays bounded.
 */
import pg from 'pg';
import type { Scenario, ScenarioContext } from './harness';

const POSTGRES_RESTARTS = 20;
const NATS_RESTARTS = 5;
const S3_RESTARTS = 5;

/**
 * End every connection to the stack's database from the server side (`pg_terminate_backend`), as a
 * failover or an operator does: the services' pooled connections, checked out or idle, are reset.
 * Returns how many were ended.
 */
export const terminateServiceConnections = async (databaseUrl: string): Promise<number> => {
  const admin = new pg.Client({ connectionString: databaseUrl, application_name: 'chaos-admin' });
  admin.on('error', () => undefined);
  await admin.connect();
  try {
    const { rows } = await admin.query<{ n: number }>(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
       where datname = current_database() and pid <> pg_backend_pid() and backend_type = 'client backend'`,
    );
    return rows[0]?.n ?? 0;
  } finally {
    await admin.end().catch(() => undefined);
  }
};

/**
 * Postgres restarted 20 times: each round a fast shutdown, either started again at once (a restart)
 * or after 1.5 s of refused connections, then, once it is back, every service connection ended from
 * the server side.
 */
export const restartPostgresRepeatedly: Scenario = {
  name: `Postgres restarted ${POSTGRES_RESTARTS}×`,
  embeddedPostgres: true,
  allServices: true,
  samePids: true,
  // Each round: a stop and a start of embedded Postgres (about 1 s) plus up to 2.5 s of waits.
  faultMs: POSTGRES_RESTARTS * 5_000,
  // The load lasts through all twenty rounds (about 50 s); a client told 503 waits 1 s, as its
  // Retry-After asks, so that the audit can retry every failure within its budget.
  burst: { maxRequests: 2000, failurePauseMs: 1000 },
  async inject(ctx: ScenarioContext) {
    let terminated = 0;
    for (let round = 0; round < POSTGRES_RESTARTS; round++) {
      await ctx.infra.postgres.stop();
      if (round % 2 === 1) await ctx.sleep(1500);
      await ctx.infra.postgres.start();
      // Let the services' pools reconnect, then cut what they opened.
      await ctx.sleep(500);
      terminated += await terminateServiceConnections(ctx.infra.postgres.url);
      await ctx.sleep(500);
    }
    ctx.note(
      `${POSTGRES_RESTARTS} fast shutdowns (every other one down 1.5 s), ${terminated} service connections ended by pg_terminate_backend between them`,
    );
  },
};

/** NATS stopped and started again 5 times, 1 s down and 1.5 s up each time. */
export const restartNatsRepeatedly: Scenario = {
  name: `NATS restarted ${NATS_RESTARTS}×`,
  allServices: true,
  samePids: true,
  faultMs: NATS_RESTARTS * 4_000,
  burst: { maxRequests: 1000, failurePauseMs: 1000 },
  async inject(ctx) {
    for (let round = 0; round < NATS_RESTARTS; round++) {
      await ctx.infra.nats.stop();
      await ctx.sleep(1000);
      await ctx.infra.nats.start();
      if (round < NATS_RESTARTS - 1) await ctx.sleep(1500);
    }
  },
};

/** The S3 server stopped and started again 5 times, 1 s down and 1.5 s up each time. */
export const restartStorageRepeatedly: Scenario = {
  name: `S3 restarted ${S3_RESTARTS}×`,
  allServices: true,
  samePids: true,
  faultMs: S3_RESTARTS * 4_000,
  burst: { maxRequests: 1000, failurePauseMs: 1000 },
  async inject(ctx) {
    for (let round = 0; round < S3_RESTARTS; round++) {
      await ctx.infra.s3.stop();
      await ctx.sleep(1000);
      await ctx.infra.s3.start();
      if (round < S3_RESTARTS - 1) await ctx.sleep(1500);
    }
  },
};

export const REPEAT_SCENARIOS: readonly Scenario[] = [
  restartPostgresRepeatedly,
  restartNatsRepeatedly,
  restartStorageRepeatedly,
];
