/**
 * The NATS cluster family (`pnpm chaos --only cluster`): the stack on three nats-servers in cluster
 * mode, NATS_URL listing all three and the events stream (with its durable consumers) on three
 * replicas, the way helm/esign deploys NATS. One server is lost under load: the stream's leader (kill -9,
 * started again 5 s later), a follower (the same), or the leader cut off from the other two's routes
 * for 10 s while clients still reach it. Every service runs (the mailer and the webhook service too),
 * with sends for signing and a webhook endpoint beside the signings: each email and each webhook
 * delivery exactly once (deliveries.ts).
 */
import type { NatsCluster } from './cluster';
import type { Scenario, ScenarioContext } from './harness';

/** How long a killed server stays down before it is started again with its store. */
const DOWN_MS = 5000;
const PARTITION_MS = 10_000;
const ELECTION_WATCH_MS = 15_000;

const clusterOf = (ctx: ScenarioContext): NatsCluster => {
  const cluster = ctx.infra.natsCluster;
  if (!cluster) throw new Error('a cluster scenario without a cluster');
  return cluster;
};

/** Polls until the stream has a leader other than `lost`; the ms it took, or undefined past `within`. */
const electionMs = async (
  ctx: ScenarioContext,
  lost: string,
  within: number,
): Promise<{ ms: number; leader: string } | undefined> => {
  const cluster = clusterOf(ctx);
  const started = performance.now();
  while (performance.now() - started < within) {
    const leader = await cluster.streamLeader(ctx.streamName, lost).catch(() => undefined);
    if (leader !== undefined && leader !== lost) return { ms: performance.now() - started, leader };
    await ctx.sleep(100);
  }
  return undefined;
};

const killAndRestart = async (ctx: ScenarioContext, role: 'leader' | 'follower') => {
  const cluster = clusterOf(ctx);
  const { leader, followers } = await cluster.streamReplicas(ctx.streamName);
  const victim = role === 'leader' ? leader : followers[0];
  if (victim === undefined) throw new Error(`the stream has no ${role}`);
  await cluster.kill9(victim);
  ctx.note(`kill -9 of ${victim}, the stream's ${role} (leader ${leader})`);
  // Watched while the server is down and after it is back (an election may outlast the 5 s).
  const elected = role === 'leader' ? electionMs(ctx, victim, ELECTION_WATCH_MS) : undefined;
  await ctx.sleep(DOWN_MS);
  await cluster.start(victim);
  if (elected) {
    const e = await elected;
    ctx.note(
      e
        ? `${e.leader} leads the stream ${(e.ms / 1000).toFixed(1)} s after the kill`
        : `no other stream leader within ${ELECTION_WATCH_MS / 1000} s of the kill`,
    );
  }
};

export const killStreamLeader: Scenario = {
  name: 'cluster: kill -9 stream leader',
  natsCluster: true,
  allServices: true,
  faultMs: 15_000,
  inject: (ctx) => killAndRestart(ctx, 'leader'),
};

export const killFollower: Scenario = {
  name: 'cluster: kill -9 follower',
  natsCluster: true,
  allServices: true,
  faultMs: 15_000,
  inject: (ctx) => killAndRestart(ctx, 'follower'),
};

/**
 * The stream's leader cut off from the other two servers (its routes dropped by iptables) for 10 s:
 * the two elect a leader among themselves; clients connected to the cut-off server still reach it
 * but nothing behind it, until the routes are back.
 */
export const partitionLeader: Scenario = {
  name: 'cluster: stream leader cut off 10 s',
  natsCluster: true,
  allServices: true,
  faultMs: 20_000,
  async inject(ctx) {
    const cluster = clusterOf(ctx);
    const leader = await cluster.streamLeader(ctx.streamName);
    ctx.note(`routes of ${leader}, the stream's leader, blocked for ${PARTITION_MS / 1000} s`);
    let elected: Promise<{ ms: number; leader: string } | undefined> | undefined;
    await cluster.partition(leader, PARTITION_MS, async (ms) => {
      elected = electionMs(ctx, leader, ms);
      await ctx.sleep(ms);
    });
    const e = await elected;
    ctx.note(
      e
        ? `${e.leader} led the stream ${(e.ms / 1000).toFixed(1)} s into the cut`
        : `no other stream leader during the cut`,
    );
  },
};

export const CLUSTER_SCENARIOS: readonly Scenario[] = [killStreamLeader, killFollower, partitionLeader];
