import { context, propagation, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineEvent } from '@esign/contracts';
import { createLogger, type Logger } from '@esign/telemetry';
import { testNatsUrl, uniqueBusPrefix } from '@esign/testing';
import { connectBus, encodeJson, UnprocessableEventError, type Bus, type EventContext } from '../src';

// The durable stream captures events.signing.> (libs/contracts/src/streams.ts). Each test has an event
// of its own, so that a consumer created by one test (which starts at the stream's beginning) does not
// also see the others' messages.
const eventFor = (name: string) =>
  defineEvent(`events.signing.test-${name}`, z.object({ n: z.number().int() }), { durable: true });

let url: string;
let prefix: string;
let publisher: Bus;
const lines: Record<string, unknown>[] = [];
const logger: Logger = createLogger({
  service: 'bus-consume-test',
  level: 'warn',
  write: (line) => void lines.push(JSON.parse(line) as Record<string, unknown>),
});
const buses: Bus[] = [];

const connect = async (name = 'consumer'): Promise<Bus> => {
  const bus = await connectBus({ url, name, prefix, logger, timeoutMs: 5000 });
  buses.push(bus);
  return bus;
};

/** Work that takes a while in a handler (the thing a test measures: concurrency, a drain). */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const consumerInfo = async (durable: string) => {
  const jsm = await publisher.connection.jetstreamManager();
  return jsm.consumers.info(publisher.streamName, durable);
};

/**
 * Wait until the consumer has nothing left: every message delivered and acked (or parked). Only
 * then can a test tell that something did not happen (no further delivery, no second call).
 */
const settled = (durable: string) =>
  expect
    .poll(async () => {
      const info = await consumerInfo(durable);
      return { pending: info.num_pending, unacked: info.num_ack_pending };
    })
    .toEqual({ pending: 0, unacked: 0 });

beforeAll(async () => {
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  url = await testNatsUrl();
  prefix = uniqueBusPrefix('consume');
  publisher = await connect('publisher');
  await publisher.ensureEventStream();
});

afterAll(async () => {
  for (const bus of buses) await bus.drain().catch(() => undefined);
  const nc = (await connectBus({ url, name: 'cleanup', prefix, logger, timeoutMs: 5000 })).connection;
  const jsm = await nc.jetstreamManager();
  await jsm.streams.delete(publisher.streamName).catch(() => undefined);
  await nc.close();
  propagation.disable();
  context.disable();
});

describe('bus.consume', () => {
  it('uses the prefixed stream and subject, acks what the handler accepted, and continues the trace', async () => {
    const Happened = eventFor('acks');
    const bus = await connect();
    const seen: { n: number; traceId: string | undefined; ctx: EventContext }[] = [];
    await bus.consume(
      Happened,
      (payload, ctx) => {
        seen.push({ n: payload.n, traceId: trace.getActiveSpan()?.spanContext().traceId, ctx });
        return Promise.resolve();
      },
      { durable: 'acks' },
    );
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const parent = trace.setSpanContext(context.active(), {
      traceId,
      spanId: 'b7ad6b7169203331',
      traceFlags: TraceFlags.SAMPLED,
      isRemote: false,
    });
    await context.with(parent, () => publisher.publish(Happened, { n: 1 }, { msgId: 'acks-1' }));

    await expect.poll(() => seen).toHaveLength(1);
    const [got] = seen;
    expect(got?.n).toBe(1);
    expect(got?.traceId).toBe(traceId);
    expect(got?.ctx).toMatchObject({ subject: Happened.subject, deliveryCount: 1, msgId: 'acks-1' });
    expect(publisher.streamName).toBe(`${prefix.replace('.', '_')}EVENTS`);
    const info = await consumerInfo('acks');
    expect(info.config.filter_subject).toBe(`${prefix}${Happened.subject}`);
    await settled('acks');
  });

  it('redelivers the same message after a failure, later, and acks it once it succeeds', async () => {
    const Happened = eventFor('retries');
    const bus = await connect();
    const deliveries: { n: number; seq: number; count: number; at: number }[] = [];
    await bus.consume(
      Happened,
      (payload, ctx) => {
        deliveries.push({ n: payload.n, seq: ctx.streamSequence, count: ctx.deliveryCount, at: Date.now() });
        if (ctx.deliveryCount === 1) return Promise.reject(new Error('SMTP is down'));
        return Promise.resolve();
      },
      { durable: 'retries', retryDelaysMs: [400] },
    );
    await publisher.publish(Happened, { n: 7 });
    await expect.poll(() => deliveries.length).toBeGreaterThanOrEqual(2);
    await settled('retries');
    expect(deliveries).toHaveLength(2);
    const [first, second] = deliveries;
    expect(second?.n).toBe(7);
    expect(second?.seq).toBe(first?.seq);
    expect(second?.count).toBe(2);
    // nak with a delay: 400 ms ± 20 % jitter.
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(300);
    expect(lines.some((l) => l.msg === 'event handler failed; redelivery scheduled')).toBe(true);
  });

  it('runs a handler failing on an outage again in place, on the same delivery, with one line per outage', async () => {
    const Happened = eventFor('outage');
    const bus = await connect();
    const calls: { n: number; count: number }[] = [];
    const outage = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { outage: true });
    await bus.consume(
      Happened,
      (payload, ctx) => {
        calls.push({ n: payload.n, count: ctx.deliveryCount });
        // Down for the first four tries of each message (about 1.5 s of waits), then back.
        return calls.filter((c) => c.n === payload.n).length <= 4
          ? Promise.reject(outage)
          : Promise.resolve();
      },
      {
        durable: 'outage',
        concurrency: 2,
        // A redelivery would come back 30 s later: the test would not see it within its time.
        retryDelaysMs: [30_000],
        outage: { isOutage: (err) => err instanceof Error && 'outage' in err },
      },
    );
    await publisher.publish(Happened, { n: 1 });
    await publisher.publish(Happened, { n: 2 });
    await settled('outage');
    // Five calls each, all on the first delivery: no redelivery, no step toward parking.
    expect(calls.filter((c) => c.n === 1)).toHaveLength(5);
    expect(calls.filter((c) => c.n === 2)).toHaveLength(5);
    expect(calls.every((c) => c.count === 1)).toBe(true);
    expect(
      lines.some((l) => l.msg === 'event handler failed; redelivery scheduled' && l.consumer === 'outage'),
    ).toBe(false);
    const outageLines = lines.filter((l) => l.dependency === 'outage handler');
    expect(outageLines.map((l) => l.msg)).toEqual(['dependency unavailable']);
  });

  it('redelivers as usual once an outage outlasts holdMs', async () => {
    const Happened = eventFor('long-outage');
    const bus = await connect();
    const counts: number[] = [];
    const outage = Object.assign(new Error('Connection terminated unexpectedly'), { outage: true });
    await bus.consume(
      Happened,
      (_payload, ctx) => {
        counts.push(ctx.deliveryCount);
        return ctx.deliveryCount === 1 ? Promise.reject(outage) : Promise.resolve();
      },
      {
        durable: 'long-outage',
        retryDelaysMs: [200],
        outage: { isOutage: (err) => err instanceof Error && 'outage' in err, holdMs: 500 },
      },
    );
    await publisher.publish(Happened, { n: 3 });
    await expect.poll(() => counts.includes(2)).toBe(true);
    await settled('long-outage');
    // Tried in place within 500 ms (waits of 100, 200), then redelivered once.
    expect(counts.filter((c) => c === 1).length).toBeGreaterThanOrEqual(2);
    expect(counts.filter((c) => c === 2)).toHaveLength(1);
  });

  it('parks a message that fails its contract without calling the handler, and logs where it is', async () => {
    const Happened = eventFor('poison');
    const bus = await connect();
    const handled: number[] = [];
    await bus.consume(
      Happened,
      (payload) => {
        handled.push(payload.n);
        return Promise.resolve();
      },
      { durable: 'poison', retryDelaysMs: [50] },
    );
    const ack = await publisher.jetstream.publish(
      `${prefix}${Happened.subject}`,
      encodeJson({ n: 'not a number' }),
    );
    await publisher.publish(Happened, { n: 2 });
    await expect.poll(() => handled).toContain(2);
    await expect
      .poll(() => lines.find((l) => l.msg === 'event parked' && l.streamSequence === ack.seq))
      .toMatchObject({
        level: 'error',
        subject: Happened.subject,
        reason: 'payload fails its contract',
      });
    await settled('poison');
    expect(handled).toEqual([2]);
    const info = await consumerInfo('poison');
    expect(info.num_ack_pending).toBe(0);
    expect(info.num_redelivered).toBe(0);
  });

  it('parks a message that fails on every allowed delivery, and one the handler calls unprocessable', async () => {
    const Happened = eventFor('exhausted');
    const bus = await connect();
    const calls: number[] = [];
    await bus.consume(
      Happened,
      (payload) => {
        calls.push(payload.n);
        return Promise.reject(
          payload.n === 31 ? new UnprocessableEventError('no such request') : new Error('always fails'),
        );
      },
      { durable: 'exhausted', maxDeliveries: 3, retryDelaysMs: [50] },
    );
    const first = await publisher.jetstream.publish(`${prefix}${Happened.subject}`, encodeJson({ n: 30 }));
    const second = await publisher.jetstream.publish(`${prefix}${Happened.subject}`, encodeJson({ n: 31 }));
    await expect
      .poll(() => lines.find((l) => l.msg === 'event parked' && l.streamSequence === first.seq))
      .toMatchObject({ reason: 'failed on all 3 deliveries', deliveryCount: 3 });
    await expect
      .poll(() => lines.find((l) => l.msg === 'event parked' && l.streamSequence === second.seq))
      .toMatchObject({ reason: 'unprocessable', deliveryCount: 1 });
    await settled('exhausted');
    expect(calls.filter((n) => n === 30)).toHaveLength(3);
    expect(calls.filter((n) => n === 31)).toHaveLength(1);
  });

  it('keeps its position across a restart: a new process gets only what it has not acked', async () => {
    const Happened = eventFor('restart');
    const first = await connect();
    const got: number[] = [];
    await first.consume(
      Happened,
      (payload) => {
        got.push(payload.n);
        return Promise.resolve();
      },
      { durable: 'restart' },
    );
    await publisher.publish(Happened, { n: 100 });
    await publisher.publish(Happened, { n: 101 });
    await expect.poll(() => got).toHaveLength(2);
    await first.drain();

    await publisher.publish(Happened, { n: 102 });
    await publisher.publish(Happened, { n: 103 });
    const second = await connect();
    const after: number[] = [];
    await second.consume(
      Happened,
      (payload) => {
        after.push(payload.n);
        return Promise.resolve();
      },
      { durable: 'restart' },
    );
    await expect.poll(() => after.length).toBeGreaterThanOrEqual(2);
    await settled('restart');
    // Everything published before this consumer first existed is in the stream too; only the
    // consumer's own position decides, and it had acked 100 and 101.
    expect(got.filter((n) => n >= 100)).toEqual([100, 101]);
    expect(after.filter((n) => n >= 100)).toEqual([102, 103]);
  });

  it('handles at most `concurrency` messages at once, and reaches that bound', async () => {
    const Happened = eventFor('bounded');
    const bus = await connect();
    let running = 0;
    let peak = 0;
    const done: number[] = [];
    await bus.consume(
      Happened,
      async (payload) => {
        running += 1;
        peak = Math.max(peak, running);
        await sleep(80);
        running -= 1;
        done.push(payload.n);
      },
      { durable: 'bounded', concurrency: 2 },
    );
    for (let n = 200; n < 208; n++) await publisher.publish(Happened, { n });
    await expect.poll(() => done.filter((n) => n >= 200), { timeout: 10_000 }).toHaveLength(8);
    expect(peak).toBe(2);
  });

  it('finishes the message in flight on drain and stops pulling', async () => {
    const Happened = eventFor('graceful');
    const bus = await connect();
    const finished: number[] = [];
    let started = 0;
    await bus.consume(
      Happened,
      async (payload) => {
        started += 1;
        await sleep(300);
        finished.push(payload.n);
      },
      // A message the client library prefetched but never handed to the loop is not nak'ed on drain:
      // it comes back after the ack wait, kept short here.
      { durable: 'graceful', ackWaitMs: 2000 },
    );
    await publisher.publish(Happened, { n: 300 });
    await publisher.publish(Happened, { n: 301 });
    await expect.poll(() => started).toBeGreaterThanOrEqual(1);
    const startedAtDrain = started;
    await bus.drain();
    // The handler that had started finished before drain resolved; nothing new was started.
    expect(finished.filter((n) => n >= 300)).toHaveLength(startedAtDrain);
    expect(started).toBe(startedAtDrain);

    const next = await connect();
    const rest: number[] = [];
    await next.consume(
      Happened,
      (payload) => {
        rest.push(payload.n);
        return Promise.resolve();
      },
      { durable: 'graceful', ackWaitMs: 2000 },
    );
    await expect
      .poll(() => rest.filter((n) => n >= 300).length + finished.length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(2);
    await settled('graceful');
    // What the first process finished was acked, so nothing is handled twice.
    expect([...finished, ...rest].filter((n) => n >= 300).sort()).toEqual([300, 301]);
  });

  it('refuses a durable name NATS would not accept and a non-durable event', async () => {
    const Happened = eventFor('core');
    const bus = await connect();
    await expect(bus.consume(Happened, () => Promise.resolve(), { durable: 'a.b' })).rejects.toThrow(
      /durable name/,
    );
    const Core = defineEvent('events.core-only', z.object({}), { durable: false });
    await expect(bus.consume(Core, () => Promise.resolve(), { durable: 'core' })).rejects.toThrow(
      /not a durable event/,
    );
  });
});
