import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import { connect } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus } from '@esign/bus';
import { DocumentSigned } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { uniqueBusPrefix } from '@esign/testing';
import { startNatsCluster, type NatsCluster } from './cluster';

const logger = createLogger({ service: 'cluster-test', level: 'error' });
const run = promisify(execFile);

/**
 * Cutting a server off takes iptables and root. CI has both (.ci/run installs iptables, runs as root)
 * and must run the case; a developer's laptop without them skips that one case, saying why.
 */
const canCut = await run('iptables', ['-w', '-S', 'INPUT']).then(
  () => true,
  () => false,
);
if (!canCut && process.env.CI) throw new Error('the NATS cluster test needs iptables and root in CI');

describe('a three-server NATS cluster', () => {
  let dir: string;
  let sut: NatsCluster;
  /** A bus client on the cluster, on a prefix of its own, with the events stream on three replicas. */
  const connectClusterBus = () =>
    connectBus({
      url: sut.url,
      name: 'test',
      prefix: uniqueBusPrefix('cluster'),
      logger,
      timeoutMs: 5000,
      streamReplicas: 3,
    });
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'esign-cluster-'));
    sut = await startNatsCluster(dir);
  }, 60_000);
  afterAll(async () => {
    await sut.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('the bus creates its stream with BUS_STREAM_REPLICAS replicas, and its durable consumers follow', async () => {
    const bus = await connectClusterBus();
    try {
      const consumption = await bus.consume(DocumentSigned, () => Promise.resolve(), { durable: 'replicas' });
      const jsm = await bus.connection.jetstreamManager();
      const stream = await jsm.streams.info(bus.streamName);
      expect(stream.config.num_replicas).toBe(3);
      expect(stream.cluster?.replicas).toHaveLength(2);
      const consumer = await jsm.consumers.info(bus.streamName, 'replicas');
      expect(consumer.cluster?.replicas).toHaveLength(2);
      await consumption.stop();
    } finally {
      await bus.drain();
    }
  });

  it('kill -9 of the stream leader: another server leads; started again, it rejoins as a follower', async () => {
    const bus = await connectClusterBus();
    try {
      await bus.ensureEventStream();
      const { leader } = await sut.streamReplicas(bus.streamName);
      await sut.kill9(leader);
      await expect
        .poll(() => sut.streamLeader(bus.streamName).catch(() => leader), { timeout: 20_000, interval: 200 })
        .not.toBe(leader);
      await sut.start(leader);
      await expect
        .poll(async () => (await sut.streamReplicas(bus.streamName)).followers, {
          timeout: 20_000,
          interval: 200,
        })
        .toContain(leader);
    } finally {
      await bus.drain();
    }
  }, 60_000);

  it.runIf(canCut)(
    'a partition drops the routes of one server (the others elect a leader) and leaves no rule behind',
    async () => {
      const bus = await connectClusterBus();
      try {
        await bus.ensureEventStream();
        const leader = await sut.streamLeader(bus.streamName);
        const cutOff = sut.servers.find((s) => s.name === leader);
        if (!cutOff) throw new Error('no leader server');
        const seen: string[] = [];
        // Up to 20 s: an election under a loaded CI machine took more than 8 s. The others are asked
        // (a cut-off server still names itself leader); the cut ends once they have a new one.
        await sut.partition(leader, 20_000, async (ms) => {
          const until = Date.now() + ms;
          // The cut-off server is still reachable by clients, but not through its routes.
          const nc = await connect({ servers: `nats://${cutOff.host}:${cutOff.clientPort}` });
          await nc.close();
          while (Date.now() < until && !seen.some((l) => l !== leader)) {
            const l = await sut.streamLeader(bus.streamName, leader).catch(() => undefined);
            if (l) seen.push(l);
            await new Promise((r) => setTimeout(r, 250));
          }
        });
        expect(seen.some((l) => l !== leader)).toBe(true);
        const { stdout } = await run('iptables', ['-w', '-S', 'INPUT']);
        expect(stdout).not.toContain(`ESIGN_CUT_${process.pid}`);
        // Healed: the cut-off server is a current replica again.
        await expect
          .poll(
            async () => {
              const jsm = await bus.connection.jetstreamManager();
              const info = await jsm.streams.info(bus.streamName);
              return (info.cluster?.replicas ?? []).filter((r) => r.current).length;
            },
            { timeout: 30_000, interval: 500 },
          )
          .toBe(2);
      } finally {
        await bus.drain();
      }
    },
    90_000,
  );
});
