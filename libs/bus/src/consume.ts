import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AckPolicy, DeliverPolicy, nanos, type JsMsg, type NatsConnection, type NatsError } from 'nats';
import type { EventContract } from '@esign/contracts';
import { createOutageLog, retryWhile, type Logger } from '@esign/telemetry';
import type { z } from 'zod';
import { decodeJson } from './envelope';
import { extractTraceContext } from './trace-context';

const tracer = trace.getTracer('@esign/bus');

/** What an event handler receives besides the payload. */
export interface EventContext {
  readonly logger: Logger;
  /** The event's subject (without the stack prefix). */
  readonly subject: string;
  /** 1 on the first delivery, 2 on the first redelivery, and so on. */
  readonly deliveryCount: number;
  /** The message's sequence in the stream: stable across redeliveries, names it in logs. */
  readonly streamSequence: number;
  /** The `Nats-Msg-Id` it was published with (the outbox row id), when it has one. */
  readonly msgId: string | undefined;
  /** When the stream stored it (its publication): where a delivery lag starts. */
  readonly publishedAt: Date;
}

/** Handles one durable event; resolving acks it, throwing has it redelivered later. */
export type EventHandler<E extends EventContract<z.ZodType>> = (
  payload: z.infer<E['payload']>,
  ctx: EventContext,
) => Promise<void>;

/**
 * Thrown by a handler for an event that can never be processed, however often it is retried (its data
 * contradicts what the handler knows): it is parked at once instead of being redelivered.
 */
export class UnprocessableEventError extends Error {
  override readonly name = 'UnprocessableEventError';
}

export interface ConsumeOptions {
  /**
   * Name of the durable consumer (letters, digits, `_`, `-`); its position in the stream is kept by
   * the server across restarts. Replicas using the same name share the work. It carries no bus
   * prefix: consumers belong to a stream, and each prefix has a stream of its own (`<prefix>EVENTS`).
   * A new consumer starts at the beginning of the stream (events published before it existed count).
   */
  durable: string;
  /** Messages handled at once by this process (default 1). */
  concurrency?: number;
  /** Deliveries before a failing message is parked (default 10). */
  maxDeliveries?: number;
  /**
   * Time the server waits for an ack before redelivering (default 30 s). A handler still running is
   * kept alive by progress acks every half of it, so a slow handler is not delivered twice.
   */
  ackWaitMs?: number;
  /**
   * Delay before redelivering after the n-th failed delivery: `retryDelaysMs[n - 1]`, the last entry
   * repeating (default 1 s, 5 s, 30 s, 2 min, 10 min), with ±20 % jitter.
   */
  retryDelaysMs?: readonly number[];
  /**
   * Failures that are a dependency's outage (`isOutage`: the service's database away), not the
   * message's: the handler is run again in place (waits of 100 ms doubling to 2 s, the message kept
   * alive by progress acks) for up to `holdMs` (default 60 s), and the outage logged once, instead of
   * a redelivery whose delay grows with every failure (1 s, 5 s, 30 s, 2 min: twenty Postgres restarts
   * in a minute pushed events minutes back) and whose count leads to parking. Past `holdMs`, the usual
   * redelivery.
   */
  outage?: { readonly isOutage: (err: unknown) => boolean; readonly holdMs?: number };
}

/** How long a handler failing on an outage is run again in place, by default. */
export const DEFAULT_OUTAGE_HOLD_MS = 60_000;

/**
 * Why a message was parked: it failed its contract (or was not JSON), its handler called it
 * unprocessable, or its last allowed delivery failed.
 */
export type TParkReason = 'contract' | 'unprocessable' | 'exhausted';

/** Told of every parked message (a metric counts them). */
export type OnParked = (parked: { readonly durable: string; readonly reason: TParkReason }) => void;

/** A running durable consumption. */
export interface Consumption {
  readonly durable: string;
  /**
   * Stop pulling, hand back what was pulled but not started, finish the handlers in flight. A message
   * the client library had prefetched but not yet handed over comes back after the ack wait.
   */
  stop(): Promise<void>;
}

export const DEFAULT_RETRY_DELAYS_MS = [1000, 5000, 30_000, 120_000, 600_000] as const;

const DURABLE_NAME = /^[A-Za-z0-9_-]{1,64}$/;

const isNatsError = (err: unknown): err is NatsError =>
  err instanceof Error && typeof (err as Partial<NatsError>).code === 'string';

/** Delay before the redelivery that follows the `deliveryCount`-th failed delivery. */
export const retryDelayMs = (
  delays: readonly number[],
  deliveryCount: number,
  random: () => number = Math.random,
): number => {
  const base = delays[Math.min(Math.max(deliveryCount, 1), delays.length) - 1] ?? 1000;
  return Math.round(base * (0.8 + 0.4 * random()));
};

/**
 * Create (or adjust) the durable pull consumer and start handling its messages. Outcomes:
 * - the handler resolves: `ack`;
 * - the handler throws: `nak` with a delay growing with the delivery count, so the message comes back
 *   later (to this process or another replica);
 * - the payload fails its contract, the handler throws `UnprocessableEventError`, or the last allowed
 *   delivery fails: the message is **parked**, i.e. terminated (`term`: never delivered to this
 *   consumer again) and logged at error level with its subject, stream sequence and delivery count.
 *   It stays in the stream, so an operator can read it by that sequence (`nats stream get`) and
 *   republish it once the cause is fixed.
 * The handler runs in a span that continues the trace carried in the message's headers.
 */
export const startDurableConsumer = async <E extends EventContract<z.ZodType>>(deps: {
  nc: NatsConnection;
  streamName: string;
  /** The subject on the wire (prefixed). */
  subject: string;
  event: E;
  handler: EventHandler<E>;
  options: ConsumeOptions;
  logger: Logger;
  onParked?: OnParked;
}): Promise<Consumption> => {
  const { nc, streamName, subject, event, handler, logger } = deps;
  const {
    durable,
    concurrency = 1,
    maxDeliveries = 10,
    ackWaitMs = 30_000,
    retryDelaysMs = DEFAULT_RETRY_DELAYS_MS,
  } = deps.options;
  if (!DURABLE_NAME.test(durable)) throw new Error(`durable name ${durable}: letters, digits, _ or - only`);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('concurrency must be at least 1');
  if (!Number.isInteger(maxDeliveries) || maxDeliveries < 1)
    throw new Error('maxDeliveries must be at least 1');

  const jsm = await nc.jetstreamManager();
  const tuning = { ack_wait: nanos(ackWaitMs), max_deliver: maxDeliveries };
  try {
    const info = await jsm.consumers.info(streamName, durable);
    if (info.config.filter_subject !== subject) {
      throw new Error(
        `durable consumer ${durable} already follows ${info.config.filter_subject ?? 'every subject'}, not ${subject}`,
      );
    }
    if (info.config.ack_wait !== tuning.ack_wait || info.config.max_deliver !== tuning.max_deliver) {
      await jsm.consumers.update(streamName, durable, tuning);
    }
  } catch (err) {
    // 10014: consumer not found.
    if (!isNatsError(err) || err.api_error?.err_code !== 10014) throw err;
    await jsm.consumers.add(streamName, {
      durable_name: durable,
      filter_subject: subject,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ...tuning,
    });
  }

  const consumer = await nc.jetstream().consumers.get(streamName, durable);
  const messages = await consumer.consume({ max_messages: concurrency });
  const log = logger.child({ consumer: durable });
  const outage = deps.options.outage;
  const outageLog = createOutageLog({ logger: log, dependency: `${durable} handler` });
  let stopping = false;

  const park = (msg: JsMsg, why: TParkReason, reason: string, fields: Record<string, unknown>) => {
    // term() without a reason: nats-server 2.9 does not recognise "+TERM <reason>".
    msg.term();
    deps.onParked?.({ durable, reason: why });
    log.error('event parked', {
      subject: event.subject,
      stream: msg.info.stream,
      streamSequence: msg.info.streamSequence,
      deliveryCount: msg.info.deliveryCount,
      msgId: msg.headers?.get('Nats-Msg-Id') || undefined,
      reason,
      ...fields,
    });
  };

  const handle = (msg: JsMsg): Promise<void> =>
    tracer.startActiveSpan(
      `${event.subject} process`,
      {
        kind: SpanKind.CONSUMER,
        attributes: {
          'messaging.system': 'nats',
          'messaging.destination.name': event.subject,
          'messaging.consumer.group.name': durable,
        },
      },
      extractTraceContext(msg.headers),
      async (span) => {
        const { deliveryCount, streamSequence } = msg.info;
        let payload: z.infer<E['payload']>;
        try {
          const parsed = event.payload.safeParse(decodeJson(msg.data));
          if (!parsed.success) {
            span.setStatus({ code: SpanStatusCode.ERROR, message: 'payload fails its contract' });
            span.end();
            park(msg, 'contract', 'payload fails its contract', {
              issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
            });
            return;
          }
          payload = parsed.data as z.infer<E['payload']>;
        } catch (err) {
          span.setStatus({ code: SpanStatusCode.ERROR, message: 'payload is not JSON' });
          span.end();
          park(msg, 'contract', 'payload is not JSON', { err });
          return;
        }
        // Progress acks keep a slow handler's message from being redelivered to someone else meanwhile.
        const keepAlive = setInterval(() => msg.working(), Math.max(250, Math.floor(ackWaitMs / 2)));
        const run = () =>
          handler(payload, {
            logger: log,
            subject: event.subject,
            deliveryCount,
            streamSequence,
            msgId: msg.headers?.get('Nats-Msg-Id') || undefined,
            publishedAt: new Date(Math.floor(msg.info.timestampNanos / 1e6)),
          });
        try {
          if (outage) {
            await retryWhile(run, outage.isOutage, {
              withinMs: outage.holdMs ?? DEFAULT_OUTAGE_HOLD_MS,
              stopped: () => stopping,
              onRetry: (err) => outageLog.down(err),
            });
            outageLog.up();
          } else {
            await run();
          }
          msg.ack();
        } catch (err) {
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: err instanceof Error ? err.message : String(err),
          });
          if (err instanceof Error) span.recordException(err);
          if (err instanceof UnprocessableEventError) {
            park(msg, 'unprocessable', 'unprocessable', { err });
          } else if (deliveryCount >= maxDeliveries) {
            park(msg, 'exhausted', `failed on all ${maxDeliveries} deliveries`, { err });
          } else {
            const delay = retryDelayMs(retryDelaysMs, deliveryCount);
            msg.nak(delay);
            log.warn('event handler failed; redelivery scheduled', {
              subject: event.subject,
              streamSequence,
              deliveryCount,
              retryInMs: delay,
              err,
            });
          }
        } finally {
          clearInterval(keepAlive);
          span.end();
        }
      },
    );

  const active = new Set<Promise<void>>();
  const loop = (async () => {
    for await (const msg of messages) {
      while (active.size >= concurrency && !stopping) await Promise.race(active);
      // Pulled but not started: hand it back at once rather than after the ack wait.
      if (stopping) {
        msg.nak();
        continue;
      }
      const running: Promise<void> = handle(msg)
        .catch((err: unknown) => log.error('event handling failed', { subject: event.subject, err }))
        .finally(() => active.delete(running));
      active.add(running);
    }
  })();
  loop.catch((err: unknown) => log.error('consumer stopped', { subject: event.subject, err }));

  let stopped: Promise<void> | undefined;
  return {
    durable,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        await messages.close();
        await loop.catch(() => undefined);
        await Promise.allSettled([...active]);
      })();
      return stopped;
    },
  };
};
