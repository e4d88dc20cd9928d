import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEvent } from '@esign/contracts';
import { createLogger, type Instruments } from '@esign/telemetry';
import { testNatsUrl, uniqueBusPrefix } from '@esign/testing';
import { connectBus, observeConsumerLag, type Bus } from '../src';

const Happened = defineEvent('events.signing.test-lag', z.object({ n: z.number().int() }), {
  durable: true,
});
const logger = createLogger({ service: 'bus-lag-test', level: 'error', write: () => undefined });

/** Gauges as the metrics SDK holds them: callbacks it runs at each scrape. */
const scraper = () => {
  const callbacks = new Map<string, Parameters<Instruments['gauge']>[1]>();
  const metrics: Pick<Instruments, 'gauge'> = {
    gauge: (key, observe) => void callbacks.set(key, observe),
  };
  const scrape = async (key: 'consumerPending' | 'consumerAckPending') => {
    const values: Record<string, number> = {};
    await callbacks.get(key)?.((value, labels) => {
      values[String((labels as Record<string, string>)['messaging.consumer.group.name'])] = value;
    });
    return values;
  };
  return { metrics, scrape };
};

let bus: Bus;

beforeAll(async () => {
  bus = await connectBus({
    url: await testNatsUrl(),
    name: 'lag',
    prefix: uniqueBusPrefix('lag'),
    logger,
    timeoutMs: 5000,
  });
  await bus.ensureEventStream();
});

afterAll(async () => {
  const jsm = await bus.connection.jetstreamManager();
  await jsm.streams.delete(bus.streamName).catch(() => undefined);
  await bus.drain();
});

describe('observeConsumerLag', () => {
  it('reports what a stopped consumer has not received, what it holds unacknowledged, and nothing for a consumer that does not exist', async () => {
    const { metrics, scrape } = scraper();
    observeConsumerLag({ bus, metrics, durables: ['lag-reader', 'lag-missing'] });
    const first = await bus.consume(Happened, () => Promise.resolve(), { durable: 'lag-reader' });
    await first.stop();
    for (const n of [1, 2, 3]) await bus.publish(Happened, { n });

    expect(await scrape('consumerPending')).toEqual({ 'lag-reader': 3 });
    expect(await scrape('consumerAckPending')).toEqual({ 'lag-reader': 0 });

    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    const second = await bus.consume(Happened, () => held, { durable: 'lag-reader', concurrency: 3 });
    await expect.poll(() => scrape('consumerAckPending'), { timeout: 5000 }).toEqual({ 'lag-reader': 3 });
    expect(await scrape('consumerPending')).toEqual({ 'lag-reader': 0 });

    release();
    await expect.poll(() => scrape('consumerAckPending'), { timeout: 5000 }).toEqual({ 'lag-reader': 0 });
    await second.stop();
  });
});
