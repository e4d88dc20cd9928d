import type { JetStreamManager } from 'nats';
import { cachedReading, type Instruments } from '@esign/telemetry';
import type { Bus } from './bus';
import type { OnParked } from './consume';

/** How old a consumer's info may be for the second gauge of the same scrape. */
const SHARED_FOR_MS = 1000;

/**
 * Report the lag of durable consumers at each scrape: `esign.bus.consumer.pending` (in the stream, not
 * yet delivered) and `esign.bus.consumer.ack_pending` (delivered, not yet acknowledged), labelled
 * `messaging.consumer.group.name` = the durable name (durable names carry no bus prefix: each
 * prefix has a stream of its own). One consumer-info request per consumer and scrape, shared by both
 * gauges; a consumer whose info cannot be read (NATS away, the consumer not created yet) reports
 * nothing for that scrape, and nothing throws.
 */
export const observeConsumerLag = (options: {
  bus: Pick<Bus, 'connection' | 'streamName'>;
  metrics: Pick<Instruments, 'gauge'>;
  durables: readonly string[];
}): void => {
  const { bus, metrics } = options;
  let manager: Promise<JetStreamManager> | undefined;
  const jsm = () => {
    manager ??= bus.connection.jetstreamManager().catch((err: unknown) => {
      manager = undefined;
      throw err;
    });
    return manager;
  };
  const readers = options.durables.map((durable) => ({
    durable,
    read: cachedReading({
      read: async () => {
        const info = await (await jsm()).consumers.info(bus.streamName, durable);
        return { pending: info.num_pending, ackPending: info.num_ack_pending };
      },
      maxAgeMs: SHARED_FOR_MS,
    }),
  }));
  const lags = () =>
    Promise.all(
      readers.map(async ({ durable, read }) => {
        const lag = await read().catch(() => undefined);
        return { durable, lag };
      }),
    );
  metrics.gauge('consumerPending', async (report) => {
    for (const { durable, lag } of await lags()) {
      if (lag) report(lag.pending, { 'messaging.consumer.group.name': durable });
    }
  });
  metrics.gauge('consumerAckPending', async (report) => {
    for (const { durable, lag } of await lags()) {
      if (lag) report(lag.ackPending, { 'messaging.consumer.group.name': durable });
    }
  });
};

/**
 * Count parked messages as `esign.bus.consumer.parked`, by durable and reason: pass the result as the
 * bus's `onParked`. The counter is created here, once.
 */
export const countParkedEvents = (metrics: Pick<Instruments, 'counter'>): OnParked => {
  const parked = metrics.counter('consumerParked');
  return ({ durable, reason }) =>
    parked.add(1, { 'messaging.consumer.group.name': durable, 'esign.reason': reason });
};
