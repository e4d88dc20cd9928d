import { randomUUID } from 'node:crypto';
import { SpanKind, SpanStatusCode, context, trace, type Span } from '@opentelemetry/api';
import {
  connect,
  ErrorCode as NatsErrorCode,
  Events as NatsEvents,
  type JetStreamClient,
  type KV,
  type Msg,
  type NatsConnection,
  type NatsError,
  type Service,
} from 'nats';
import {
  startDurableConsumer,
  type ConsumeOptions,
  type EventHandler,
  type Consumption,
  type OnParked,
} from './consume';
import {
  DURABLE_EVENT_SUBJECTS,
  EVENTS_STREAM,
  ServiceError,
  type EventContract,
  type RequestContract,
} from '@esign/contracts';
import { createOutageLog, type Logger, type OutageLog } from '@esign/telemetry';
import type { z } from 'zod';
import { decodeJson, encodeJson, errorEnvelope, invalidArgument, okEnvelope, ZEnvelope } from './envelope';
import { extractTraceContext, injectTraceContext } from './trace-context';

const tracer = trace.getTracer('@esign/bus');

/**
 * `unavailable` because nothing was listening: the request reached no service, so it certainly had no
 * effect (unlike a timeout, after which the work may have been done all the same).
 */
export class NotDeliveredError extends ServiceError {
  constructor(message: string) {
    super('unavailable', message);
  }
}

/**
 * `unavailable` because no answer came within the request's timeout: the work may have been done all
 * the same (a caller that must know asks again, or looks the outcome up).
 */
export class RequestTimeoutError extends ServiceError {
  constructor(message: string) {
    super('unavailable', message);
  }
}

/** What a request handler receives besides the request. */
export interface HandlerContext {
  readonly logger: Logger;
  readonly subject: string;
}

export type RequestHandler<C extends RequestContract<z.ZodType, z.ZodType>> = (
  request: z.infer<C['request']>,
  ctx: HandlerContext,
) => Promise<z.input<C['reply']>>;

/** A handler bound to its contract, ready to be served. */
export interface Endpoint {
  readonly contract: RequestContract<z.ZodType, z.ZodType>;
  readonly handle: (request: unknown, ctx: HandlerContext) => Promise<unknown>;
}

/** Bind a handler to its contract (keeps the pair type-checked). */
export const endpoint = <C extends RequestContract<z.ZodType, z.ZodType>>(
  contract: C,
  handle: RequestHandler<C>,
): Endpoint => ({ contract, handle: handle as Endpoint['handle'] });

export interface BusOptions {
  /** NATS server URL(s), comma-separated. */
  url: string;
  /** The connecting service; also the queue group of everything it serves. */
  name: string;
  /** Subject prefix shared by one stack (empty in production). */
  prefix: string;
  logger: Logger;
  /** Default request timeout. */
  timeoutMs: number;
  /**
   * Servers each JetStream stream this bus creates is replicated on (default 1; 3 on a three-server
   * cluster). Durable consumers take their stream's (num_replicas 0).
   */
  streamReplicas?: number;
  /** Told of every message a durable consumer of this connection parks (see ./consume). */
  onParked?: OnParked;
}

/** Typed request/reply and events over NATS, with the error envelope and trace propagation. */
export interface Bus {
  readonly connection: NatsConnection;
  request<C extends RequestContract<z.ZodType, z.ZodType>>(
    contract: C,
    request: z.input<C['request']>,
    options?: { timeoutMs?: number },
  ): Promise<z.infer<C['reply']>>;
  /**
   * Serve endpoints in this service's queue group (discoverable through `$SRV`). With
   * `maxConcurrent`, at most that many requests are handled at once and the rest wait their turn in
   * arrival order (a request message is small: a claim check, not the file), which bounds the memory
   * of work that holds whole documents.
   */
  serve(
    endpoints: Endpoint[],
    options?: {
      version?: string;
      maxConcurrent?: number;
      /**
       * Recognises errors that mean a dependency is down (a database, say) and describes them: such a
       * failure is answered `unavailable` with that description (503 at the edge), not `internal`.
       */
      unavailable?: (err: unknown) => string | undefined;
    },
  ): Promise<void>;
  /**
   * Publish an event. Durable events go to JetStream with `msgId` for de-duplication; others are
   * fire-and-forget to every subscriber.
   */
  publish<E extends EventContract<z.ZodType>>(
    event: E,
    payload: z.input<E['payload']>,
    options?: { msgId?: string },
  ): Promise<void>;
  /** Every instance receives these (no queue group): for cache invalidation and the like. */
  subscribe<E extends EventContract<z.ZodType>>(
    event: E,
    handler: (payload: z.infer<E['payload']>) => void | Promise<void>,
  ): void;
  /**
   * Consume a durable event from the JetStream stream with a durable pull consumer named
   * `options.durable` (one filter subject per consumer, so it works on nats-server 2.9): the handler's
   * success acks the message, a failure naks it with a growing delay, and a message that fails its
   * contract or keeps failing is parked (see ./consume). Creates the stream when it is missing. `drain`
   * stops pulling and waits for the handlers in flight.
   */
  consume<E extends EventContract<z.ZodType>>(
    event: E,
    handler: EventHandler<E>,
    options: ConsumeOptions,
  ): Promise<Consumption>;
  /** Create or update the stream that holds durable events. */
  ensureEventStream(): Promise<void>;
  /**
   * A JetStream key-value bucket of this stack (its name carries the stack prefix), created when
   * missing, with `history: 1` and the bus's replicas: entries expire `ttlMs` after their last write.
   * Open it once (at start-up) and keep it: every call looks the bucket up on the server.
   */
  keyValue(bucket: string, options: { readonly ttlMs: number }): Promise<KV>;
  readonly jetstream: JetStreamClient;
  /** Subject as it is on the wire (with the stack prefix). */
  wire(subject: string): string;
  readonly streamName: string;
  /** True while connected. */
  isConnected(): boolean;
  /** Stop serving, finish in-flight handlers, flush, close. */
  drain(): Promise<void>;
}

const isNatsError = (err: unknown): err is NatsError =>
  err instanceof Error && typeof (err as Partial<NatsError>).code === 'string';

const failSpan = (span: Span, err: unknown) => {
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
  if (err instanceof Error) span.recordException(err);
};

/** Outages met by the requests of one `serve`, by the description `unavailable` gave them. */
interface RequestOutages {
  down(description: string, subject: string, err: unknown): void;
  /** A request of `subject` succeeded: it ends the outages it had met. */
  up(subject: string): void;
}

/**
 * An outage ends when a request of a subject that met it succeeds: a subject that does not use the
 * dependency would otherwise end it at once and start it again with the next failure.
 */
const requestOutages = (logger: Logger): RequestOutages => {
  const outages = new Map<string, { log: OutageLog; subjects: Set<string> }>();
  return {
    down(description, subject, err) {
      let outage = outages.get(description);
      if (!outage) {
        outage = { log: createOutageLog({ logger, dependency: description }), subjects: new Set() };
        outages.set(description, outage);
      }
      outage.subjects.add(subject);
      outage.log.down(err, { subject });
    },
    up(subject) {
      for (const outage of outages.values()) {
        if (!outage.subjects.has(subject)) continue;
        outage.subjects.clear();
        outage.log.up();
      }
    },
  };
};

export const connectBus = async (options: BusOptions): Promise<Bus> => {
  const { prefix, logger } = options;
  const nc = await connect({
    servers: options.url.split(','),
    name: options.name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    // nats.js would capture a stack trace (new Error()) for every request, for richer timeout errors;
    // our errors name the subject, and the capture is measurable on the hot path.
    noAsyncTraces: true,
  });
  /**
   * False from the moment the connection to NATS is lost until it is back. A request made meanwhile
   * is refused at once (unavailable, not delivered): nats.js would buffer it and send it on
   * reconnecting, and if its responders have not resubscribed by then the server drops it without a
   * "no responders" answer, so the caller waited its whole timeout (the slow first request after a
   * NATS restart in `pnpm chaos`, docs/faults.md).
   */
  let connected = true;
  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === NatsEvents.Disconnect) {
        connected = false;
        logger.warn('message bus disconnected; reconnecting', {
          server: typeof status.data === 'string' ? status.data : undefined,
        });
      } else if (status.type === NatsEvents.Reconnect) {
        connected = true;
        logger.info('message bus reconnected', {
          server: typeof status.data === 'string' ? status.data : undefined,
        });
      }
    }
  })();
  const wire = (subject: string) => `${prefix}${subject}`;
  const streamName = `${prefix.replace(/[^A-Za-z0-9_-]/g, '_')}${EVENTS_STREAM}`;
  const services: Service[] = [];
  const consumptions: Consumption[] = [];
  const inFlight = new Set<Promise<unknown>>();
  const js = nc.jetstream();

  const handleMessage = async (
    ep: Endpoint,
    msg: Msg,
    unavailable: ((err: unknown) => string | undefined) | undefined,
    outages: RequestOutages,
  ): Promise<void> => {
    const subject = ep.contract.subject;
    const parent = extractTraceContext(msg.headers);
    await tracer.startActiveSpan(
      `${subject} process`,
      {
        kind: SpanKind.SERVER,
        attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject },
      },
      parent,
      async (span) => {
        try {
          const parsed = ep.contract.request.safeParse(decodeJson(msg.data));
          if (!parsed.success) throw invalidArgument(parsed.error);
          const result = await ep.handle(parsed.data, { logger, subject });
          msg.respond(okEnvelope(ep.contract.reply.parse(result)));
          outages.up(subject);
        } catch (err) {
          if (err instanceof ServiceError) {
            if (err.code === 'internal' || err.code === 'unavailable') failSpan(span, err);
            msg.respond(errorEnvelope({ code: err.code, message: err.message, field: err.field }));
          } else {
            failSpan(span, err);
            const down = unavailable?.(err);
            if (down !== undefined) {
              // One line per outage, not one warning with its stack per request that met it.
              outages.down(down, subject, err);
              msg.respond(errorEnvelope({ code: 'unavailable', message: down }));
            } else {
              logger.error('handler failed', { subject, err });
              msg.respond(errorEnvelope({ code: 'internal', message: 'internal error' }));
            }
          }
        } finally {
          span.end();
        }
      },
    );
  };

  const bus: Bus = {
    connection: nc,
    jetstream: js,
    streamName,
    wire,
    isConnected: () => !nc.isClosed() && nc.info !== undefined,

    async request<C extends RequestContract<z.ZodType, z.ZodType>>(
      contract: C,
      request: z.input<C['request']>,
      opts?: { timeoutMs?: number },
    ): Promise<z.infer<C['reply']>> {
      const subject = contract.subject;
      return tracer.startActiveSpan(
        `${subject} send`,
        {
          kind: SpanKind.CLIENT,
          attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject },
        },
        async (span) => {
          try {
            // A request the contract refuses is the caller's argument at fault, as the server would say.
            const checked = contract.request.safeParse(request);
            if (!checked.success) throw invalidArgument(checked.error);
            const body: unknown = checked.data;
            if (!connected) throw new NotDeliveredError('the message bus is unavailable');
            let reply: Msg;
            try {
              reply = await nc.request(wire(subject), encodeJson(body), {
                timeout: opts?.timeoutMs ?? options.timeoutMs,
                headers: injectTraceContext(context.active()),
              });
            } catch (err) {
              if (isNatsError(err) && err.code === (NatsErrorCode.NoResponders as string)) {
                throw new NotDeliveredError(`${subject.split('.')[0] ?? subject} service is unavailable`);
              }
              if (isNatsError(err) && err.code === (NatsErrorCode.Timeout as string)) {
                throw new RequestTimeoutError(`${subject} timed out`);
              }
              if (isNatsError(err)) throw new ServiceError('unavailable', `message bus: ${err.message}`);
              throw err;
            }
            const envelope = ZEnvelope.parse(decodeJson(reply.data));
            if (!envelope.ok) {
              throw new ServiceError(envelope.error.code, envelope.error.message, envelope.error.field);
            }
            return contract.reply.parse(envelope.data) as z.infer<C['reply']>;
          } catch (err) {
            failSpan(span, err);
            throw err;
          } finally {
            span.end();
          }
        },
      );
    },

    async serve(endpoints, serveOptions = {}) {
      const { version = '0.1.0', maxConcurrent = Number.POSITIVE_INFINITY, unavailable } = serveOptions;
      const srv = await nc.services.add({ name: options.name, version, queue: options.name });
      let active = 0;
      const waiting: (() => void)[] = [];
      const turn = (): Promise<void> | undefined => {
        if (active < maxConcurrent) {
          active += 1;
          return undefined;
        }
        return new Promise<void>((resolve) => waiting.push(resolve));
      };
      const done = () => {
        const next = waiting.shift();
        if (next) next();
        else active -= 1;
      };
      const handle = async (ep: Endpoint, msg: Msg) => {
        await turn();
        try {
          await handleMessage(ep, msg, unavailable, outages);
        } finally {
          done();
        }
      };
      const outages = requestOutages(logger);
      services.push(srv);
      for (const ep of endpoints) {
        srv.addEndpoint(ep.contract.subject.replace(/\./g, '-'), {
          subject: wire(ep.contract.subject),
          handler: (err, msg) => {
            if (err) {
              logger.error('endpoint subscription failed', { subject: ep.contract.subject, err });
              return;
            }
            // The services callback only catches synchronous throws; handleMessage answers its own errors.
            const p = handle(ep, msg).catch((e: unknown) => logger.error('unanswered request', { err: e }));
            inFlight.add(p);
            void p.finally(() => inFlight.delete(p));
          },
        });
      }
      // Resolved once the server has the subscriptions: a request sent right after finds a responder.
      await nc.flush();
    },

    async publish(event, payload, opts) {
      const data = encodeJson(event.payload.parse(payload));
      const headers = injectTraceContext(context.active());
      if (event.durable) {
        await js.publish(wire(event.subject), data, { msgID: opts?.msgId ?? randomUUID(), headers });
      } else {
        nc.publish(wire(event.subject), data, { headers });
      }
    },

    subscribe<E extends EventContract<z.ZodType>>(
      event: E,
      handler: (payload: z.infer<E['payload']>) => void | Promise<void>,
    ) {
      nc.subscribe(wire(event.subject), {
        callback: (err, msg) => {
          if (err) return logger.error('subscription failed', { subject: event.subject, err });
          const parsed = event.payload.safeParse(decodeJson(msg.data));
          if (!parsed.success) return logger.warn('dropped malformed event', { subject: event.subject });
          Promise.resolve(handler(parsed.data as z.infer<E['payload']>)).catch((e: unknown) =>
            logger.error('event handler failed', { subject: event.subject, err: e }),
          );
        },
      });
    },

    async ensureEventStream() {
      const jsm = await nc.jetstreamManager();
      const subjects = DURABLE_EVENT_SUBJECTS.map(wire);
      const replicas = options.streamReplicas ?? 1;
      try {
        const info = await jsm.streams.info(streamName);
        if (
          subjects.some((s) => !info.config.subjects.includes(s)) ||
          info.config.num_replicas !== replicas
        ) {
          // A cluster grows (or shrinks) the stream's replicas in place: its messages are kept.
          await jsm.streams.update(streamName, { ...info.config, subjects, num_replicas: replicas });
        }
      } catch (err) {
        if (!isNatsError(err) || err.api_error?.err_code !== 10059) throw err;
        try {
          await jsm.streams.add({
            name: streamName,
            subjects,
            duplicate_window: 120_000_000_000,
            num_replicas: replicas,
          });
        } catch (addErr) {
          // Another service created it meanwhile (10058: stream name already in use).
          if (!isNatsError(addErr) || addErr.api_error?.err_code !== 10058) throw addErr;
        }
      }
    },

    keyValue(bucket, kvOptions) {
      return js.views.kv(`${prefix.replace(/[^A-Za-z0-9_-]/g, '_')}${bucket}`, {
        ttl: kvOptions.ttlMs,
        history: 1,
        replicas: options.streamReplicas ?? 1,
      });
    },

    async consume(event, handler, consumeOptions) {
      if (!event.durable) throw new Error(`${event.subject} is not a durable event`);
      await bus.ensureEventStream();
      const consumption = await startDurableConsumer({
        nc,
        streamName,
        subject: wire(event.subject),
        event,
        handler,
        options: consumeOptions,
        logger,
        onParked: options.onParked,
      });
      consumptions.push(consumption);
      return consumption;
    },

    async drain() {
      await Promise.all([...services.map((s) => s.stop()), ...consumptions.map((c) => c.stop())]);
      await Promise.allSettled([...inFlight]);
      if (!nc.isClosed()) await nc.drain();
    },
  };
  return bus;
};

/** The connection settings of `connectBus` from a service's parsed environment (`ZBaseEnv`). */
export const busOptionsFrom = (env: {
  NATS_URL: string;
  BUS_PREFIX: string;
  BUS_TIMEOUT_MS: number;
  BUS_STREAM_REPLICAS: number;
}): Pick<BusOptions, 'url' | 'prefix' | 'timeoutMs' | 'streamReplicas'> => ({
  url: env.NATS_URL,
  prefix: env.BUS_PREFIX,
  timeoutMs: env.BUS_TIMEOUT_MS,
  streamReplicas: env.BUS_STREAM_REPLICAS,
});
