import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { AccountPlanChanged, KeyRevoked, RequestsCounted } from '@esign/contracts';
import { blobOptionsFrom, createBlobStore } from '@esign/blob';
import { busOptionsFrom, busResource } from '@esign/bus';
import {
  createLogger,
  healthServer,
  metricsResource,
  startService,
  untraced,
  type Logger,
  type Resource,
} from '@esign/telemetry';
import { createApp } from './app';
import { createIdempotencyStore, IDEMPOTENCY_BUCKET, IDEMPOTENCY_TTL_MS } from './api/idempotency';
import type { TGatewayConfig } from './config';
import { createKeyCache } from './http/key-cache';
import { answerClientError, isRefusedBySize } from './http/client-error';
import { createEdgeMetrics, UNMATCHED_ROUTE, type EdgeMetrics } from './http/request-metrics';
import { createRateCounter } from './http/rate-counter';
import { createSigningPorts } from './operations/ports';
import { createEmbedOriginsCache } from './operations/embed-origins-cache';
import { createEnvelopePorts } from './operations/envelope-ports';
import { createSendingPorts } from './operations/sending-ports';
import { createSigningLinkPorts } from './operations/signing-link-ports';
import { createTemplatePorts } from './operations/template-ports';
import { createVerifyingPorts } from './operations/verifying-ports';

export interface RunningGateway {
  readonly url: string;
  /** The operations port: /healthz, /readyz and /metrics. */
  readonly healthPort: number;
  stop(): Promise<void>;
}

/** Wire the gateway: connections, adapters, routes, listener. */
export const startGateway = (
  config: TGatewayConfig,
  options: { logger?: Logger } = {},
): Promise<RunningGateway> => {
  const logger = options.logger ?? createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  return startService(async (use) => {
    const metrics = await use(metricsResource({ service: 'gateway', exporter: config.METRICS_EXPORTER }));
    const bus = await use(busResource({ ...busOptionsFrom(config), name: 'gateway', logger }));
    // The gateway publishes a durable event itself (a sign-in link was asked for): the stream must
    // capture its subject even when no mailer has started yet.
    await bus.ensureEventStream();
    const blob = createBlobStore(blobOptionsFrom(config));
    await blob.ensureBucket();
    const keyCache = createKeyCache({
      ttlMs: config.KEY_CACHE_TTL_MS,
      rejectedTtlMs: config.REJECTED_KEY_TTL_MS,
    });
    // Every replica hears every revocation (no queue group) and forgets the key at once.
    bus.subscribe(KeyRevoked, (event) => keyCache.evict(event.keyHash));
    bus.subscribe(AccountPlanChanged, (event) => keyCache.evictAccount(event.accountId));
    // Rate limits hold across replicas: each tells the others what it counted, a few times a second.
    const replica = randomUUID();
    const rateCounter = createRateCounter({ windowMs: 60_000 });
    bus.subscribe(RequestsCounted, (counted) => {
      if (counted.replica !== replica) rateCounter.addRemote(counted);
    });
    await use({
      name: 'rate-limit sharing',
      start: () => {
        const timer = setInterval(() => {
          for (const counted of rateCounter.takeUnsent()) {
            bus.publish(RequestsCounted, { replica, ...counted }).catch((err: unknown) => {
              logger.warn('could not share rate-limit counts', { err });
            });
          }
        }, config.RATE_LIMIT_SYNC_MS);
        timer.unref();
        return timer;
      },
      stop: (timer) => clearInterval(timer),
    });

    // Shared by every replica, and kept across restarts: a retry may reach another gateway.
    const idempotency = createIdempotencyStore({
      kv: await bus.keyValue(IDEMPOTENCY_BUCKET, { ttlMs: IDEMPOTENCY_TTL_MS }),
      logger,
    });

    const signing = createSigningPorts({ bus, blob, logger, signTimeoutMs: config.SIGN_TIMEOUT_MS });
    const sending = createSendingPorts({ bus, blob, logger, inspectTimeoutMs: config.SIGN_TIMEOUT_MS });
    const verifying = createVerifyingPorts({ bus });
    const signingLink = createSigningLinkPorts({ bus, blob, signing, logger });
    const templates = createTemplatePorts({ bus, blob, logger });
    const envelopes = createEnvelopePorts({
      bus,
      blob,
      logger,
      signTimeoutMs: config.SIGN_TIMEOUT_MS,
      embedOriginsCache: createEmbedOriginsCache({ ttlMs: config.EMBED_ORIGINS_CACHE_TTL_MS }),
    });
    const edge = createEdgeMetrics(metrics);
    const app = createApp({
      config,
      bus,
      blob,
      logger,
      metrics: edge,
      keyCache,
      rateCounter,
      idempotency,
      signing,
      sending,
      verifying,
      signingLink,
      envelopes,
      templates,
    });
    const server = await use(httpServer({ app, port: config.PORT, metrics: edge }));
    const port = (server.address() as AddressInfo).port;
    // The probes answer on the API port as well (/healthz, /readyz); metrics only here, off the ingress.
    const health = await use(
      healthServer({
        port: config.HEALTH_PORT,
        ready: () => bus.isConnected() && untraced(() => blob.ping()),
        metrics,
      }),
    );
    logger.info('gateway listening', { port, healthPort: health.port });
    return { url: `http://127.0.0.1:${port}`, healthPort: health.port };
  });
};

/** The HTTP listener; stopping it refuses new connections and lets in-flight requests finish. */
const httpServer = (options: {
  app: RequestListener;
  port: number;
  metrics: EdgeMetrics;
}): Resource<Server> => ({
  name: 'HTTP server',
  start: async () => {
    const server = createServer(options.app);
    // Requests Node's HTTP parser refuses never reach express: answer them in the same JSON shape.
    server.on('clientError', (err: Error & { code?: string }, socket: Socket) => {
      // Never routed: counted under `unmatched`, and only when refused for its size (headers over 16 KB).
      if (isRefusedBySize(err))
        options.metrics.refused.add(1, { 'http.route': UNMATCHED_ROUTE, reason: 'size' });
      answerClientError(err, socket);
    });
    server.keepAliveTimeout = 65_000;
    server.requestTimeout = 10 * 60_000;
    await new Promise<void>((resolve) => server.listen(options.port, resolve));
    return server;
  },
  stop: (server) =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    }),
});
