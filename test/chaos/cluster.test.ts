import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus } from '@esign/bus';
import { DocumentSigned } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { uniqueBusPrefix } from '@esign/testing';
import { startNatsCluster, type NatsCluster } from './cluster';

const logger = createLogger({ service: 'cluster-test', level: 'error' });

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
});
