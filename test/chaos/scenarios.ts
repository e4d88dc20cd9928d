/**
 * The fault scenarios, in the order the issue gives them priority. `faultMs`: how long each fault and
 * its undoing take, roughly (start-ups included), toward the scenario's deadline.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import type { ServiceName } from '@esign/stack';
import type { Scenario, ScenarioContext } from './harness';

const pidsOf = (ctx: ScenarioContext, name: ServiceName): number[] => ctx.stack.pids()[name] ?? [];

/** kill -9 of one of two signer replicas; a few seconds later of the other; then both started again. */
export const killSigner: Scenario = {
  name: 'kill -9 pdf-signer',
  faultMs: 10_000,
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
  faultMs: 10_000,
  async inject(ctx) {
    await ctx.infra.nats.stop();
    await ctx.sleep(5000);
    await ctx.infra.nats.start();
  },
};

/** Object storage stopped for 5 s. */
export const stopStorage: Scenario = {
  name: 'S3 down 5 s',
  faultMs: 10_000,
  async inject(ctx) {
    await ctx.infra.s3.stop();
    await ctx.sleep(5000);
    await ctx.infra.s3.start();
  },
};

/** Embedded Postgres stopped (fast shutdown) and started again. */
export const restartPostgres: Scenario = {
  name: 'Postgres restart',
  faultMs: 15_000,
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
  faultMs: 10_000,
  async inject(ctx) {
    for (const pid of pidsOf(ctx, 'document-store')) ctx.kill9(pid);
    await ctx.sleep(2000);
    await ctx.stack.startService('document-store');
  },
};

/** kill -9 of the gateway (clients see resets), restarted 2 s later on the same port. */
export const killGateway: Scenario = {
  name: 'kill -9 gateway',
  faultMs: 10_000,
  async inject(ctx) {
    for (const pid of pidsOf(ctx, 'gateway')) ctx.kill9(pid);
    await ctx.sleep(2000);
    await ctx.stack.startService('gateway');
  },
};

/** How long the CPU is saturated, and by how many busy processes per core. */
const CPU_HOG_MS = 10_000;
const HOGS_PER_CORE = 2;

/**
 * The signer's host CPU saturated by other processes: busy loops, two per core, for 10 s (on this
 * machine the signer shares its cores with the rest of the stack, so everything slows down with it).
 * Throughput must drop (the fault was felt); nothing may time out or fail.
 */
export const saturateCpu: Scenario = {
  name: 'CPU saturated 10 s',
  faultMs: 15_000,
  async inject(ctx) {
    const hogs: ChildProcess[] = [];
    try {
      for (let i = 0; i < availableParallelism() * HOGS_PER_CORE; i++) {
        // Under `timeout`, so that a harness killed meanwhile does not leave busy loops behind.
        const seconds = String(Math.ceil(CPU_HOG_MS / 1000) + 5);
        hogs.push(spawn('timeout', [seconds, 'sh', '-c', 'while :; do :; done'], { stdio: 'ignore' }));
      }
      ctx.note(`${hogs.length} busy-loop processes for ${CPU_HOG_MS / 1000} s`);
      await ctx.sleep(CPU_HOG_MS);
    } finally {
      // timeout passes SIGTERM on to the loop (a SIGKILL would end timeout alone).
      for (const hog of hogs) hog.kill('SIGTERM');
    }
  },
  check({ answers, okRate }) {
    const problems: string[] = [];
    // Only "lower": on a machine that other work already loads, four more busy loops take less.
    if (!(okRate.during < okRate.before)) {
      problems.push(
        `throughput did not drop (200/s ${okRate.before.toFixed(1)} before, ${okRate.during.toFixed(1)} during)`,
      );
    }
    // A slow machine is no reason to refuse: every request of the burst must have been signed.
    const failed = answers.filter((a) => a.status !== 200);
    if (failed.length > 0)
      problems.push(`${failed.length} request(s) not signed: ${failed[0]?.status} ${failed[0]?.error ?? ''}`);
    return problems;
  },
};

/** Requests sent this long before a SIGTERM count as in flight when it came (their connection is open). */
const IN_FLIGHT_MARGIN_MS = 50;

/**
 * What Kubernetes does on a rolling update or a node drain: SIGTERM to one of two signer replicas
 * under load (the other keeps serving), then SIGTERM to the gateway, started again once it has
 * exited. Every request in flight at either SIGTERM must be answered 200 (finished, not cut), and
 * while the signer replica drains no request may fail at all. New connections while the only
 * gateway is down are refused (`reset`, retried by the client); in a cluster the preStop delay and
 * the other gateway replicas take them. The drain times are the figures the Helm chart's
 * terminationGracePeriodSeconds rests on (docs/faults.md).
 */
export const sigtermUnderLoad: Scenario = {
  name: 'SIGTERM signer + gateway',
  faultMs: 20_000,
  replicas: { 'pdf-signer': 2 },
  // Twenty pages, so that signings last long enough for some to be in flight at each SIGTERM: with
  // one page (about 80 ms on a quiet machine) a SIGTERM once fell between requests, and the drain
  // went untested.
  pages: 20,
  async inject(ctx) {
    const [signer] = pidsOf(ctx, 'pdf-signer');
    const [gateway] = pidsOf(ctx, 'gateway');
    if (signer === undefined || gateway === undefined) throw new Error('expected a signer and a gateway');
    ctx.mark('signer-term');
    const signerMs = await ctx.terminate(signer);
    ctx.mark('signer-exit');
    ctx.note(`signer replica drained and exited ${signerMs.toFixed(0)} ms after SIGTERM`);
    await ctx.sleep(1000);
    ctx.mark('gateway-term');
    const gatewayMs = await ctx.terminate(gateway);
    ctx.note(`gateway drained and exited ${gatewayMs.toFixed(0)} ms after SIGTERM`);
    await ctx.stack.startService('gateway');
  },
  check({ answers, marks }) {
    const problems: string[] = [];
    const signerTerm = marks.get('signer-term') ?? 0;
    const gatewayTerm = marks.get('gateway-term') ?? 0;
    for (const a of answers) {
      const inFlightAtGateway = a.startedAt < gatewayTerm - IN_FLIGHT_MARGIN_MS && a.endedAt > gatewayTerm;
      const duringSignerDrain = a.endedAt >= signerTerm && a.endedAt < gatewayTerm;
      if ((inFlightAtGateway || duringSignerDrain) && a.status !== 200) {
        problems.push(
          `${a.key}: ${a.status} ${a.error ?? ''} (${inFlightAtGateway ? 'in flight at the gateway SIGTERM' : 'while a signer replica drained'})`,
        );
      }
    }
    const inFlight = answers.filter(
      (a) => a.startedAt < gatewayTerm - IN_FLIGHT_MARGIN_MS && a.endedAt > gatewayTerm,
    );
    if (inFlight.length === 0)
      problems.push('no request was in flight at the gateway SIGTERM: the drain was not tested');
    return problems;
  },
};

export const SCENARIOS: readonly Scenario[] = [
  killSigner,
  restartNats,
  stopStorage,
  restartPostgres,
  killDocumentStore,
  killGateway,
  saturateCpu,
  sigtermUnderLoad,
];
