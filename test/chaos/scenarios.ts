/** The fault scenarios, in the order the issue gives them priority. */
import type { ServiceName } from '@esign/stack';
import type { Scenario, ScenarioContext } from './harness';

const pidsOf = (ctx: ScenarioContext, name: ServiceName): number[] => ctx.stack.pids()[name] ?? [];

/** kill -9 of one of two signer replicas; a few seconds later of the other; then both started again. */
export const killSigner: Scenario = {
  name: 'kill -9 pdf-signer',
  replicas: { 'pdf-signer': 2 },
  async inject(ctx) {
    const [first, second] = pidsOf(ctx, 'pdf-signer');
    if (first === undefined || second === undefined) throw new Error('expected two signer replicas');
    ctx.kill9(first);
    await ctx.sleep(2000);
    ctx.kill9(second);
    await ctx.sleep(3000);
    await ctx.stack.startService('pdf-signer');
  },
};

/** NATS stopped for 5 s and started again with its JetStream store. */
export const restartNats: Scenario = {
  name: 'NATS down 5 s',
  async inject(ctx) {
    await ctx.infra.nats.stop();
    await ctx.sleep(5000);
    await ctx.infra.nats.start();
  },
};

/** Object storage stopped for 5 s. */
export const stopStorage: Scenario = {
  name: 'S3 down 5 s',
  async inject(ctx) {
    await ctx.infra.s3.stop();
    await ctx.sleep(5000);
    await ctx.infra.s3.start();
  },
};

/** Embedded Postgres stopped (fast shutdown) and started again. */
export const restartPostgres: Scenario = {
  name: 'Postgres restart',
  embeddedPostgres: true,
  async inject(ctx) {
    await ctx.infra.postgres.stop();
    await ctx.sleep(2000);
    await ctx.infra.postgres.start();
  },
};

/** kill -9 of the document store, restarted 2 s later. */
export const killDocumentStore: Scenario = {
  name: 'kill -9 document-store',
  async inject(ctx) {
    for (const pid of pidsOf(ctx, 'document-store')) ctx.kill9(pid);
    await ctx.sleep(2000);
    await ctx.stack.startService('document-store');
  },
};

/** kill -9 of the gateway (clients see resets), restarted 2 s later on the same port. */
export const killGateway: Scenario = {
  name: 'kill -9 gateway',
  async inject(ctx) {
    for (const pid of pidsOf(ctx, 'gateway')) ctx.kill9(pid);
    await ctx.sleep(2000);
    await ctx.stack.startService('gateway');
  },
};

export const SCENARIOS: readonly Scenario[] = [
  killSigner,
  restartNats,
  stopStorage,
  restartPostgres,
  killDocumentStore,
  killGateway,
];
