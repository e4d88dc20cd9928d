import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeyRevoked } from '@esign/contracts';
import { createBlobStore } from '@esign/blob';
import { connectBus } from '@esign/bus';
import { createLogger, type Logger } from '@esign/telemetry';
import { createApp } from './app';
import type { TGatewayConfig } from './config';
import { createKeyCache } from './http/key-cache';

export interface RunningGateway {
  readonly url: string;
  stop(): Promise<void>;
}

/** Wire the gateway: connections, adapters, routes, listener. */
export const startGateway = async (
  config: TGatewayConfig,
  options: { logger?: Logger } = {},
): Promise<RunningGateway> => {
  const logger = options.logger ?? createLogger({ service: 'gateway', level: config.LOG_LEVEL });
  const bus = await connectBus({
    url: config.NATS_URL,
    name: 'gateway',
    prefix: config.BUS_PREFIX,
    logger,
    timeoutMs: config.BUS_TIMEOUT_MS,
  });
  const blob = createBlobStore({
    endpoint: config.S3_ENDPOINT,
    accessKey: config.S3_ACCESS_KEY,
    secretKey: config.S3_SECRET_KEY,
    bucket: config.S3_BUCKET,
    region: config.S3_REGION,
  });
  await blob.ensureBucket();
  const keyCache = createKeyCache({ ttlMs: config.KEY_CACHE_TTL_MS });
  // Every replica hears every revocation (no queue group) and forgets the key at once.
  bus.subscribe(KeyRevoked, (event) => keyCache.evict(event.keyHash));

  const app = createApp({ config, bus, blob, logger, keyCache });
  const server: Server = createServer(app);
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 10 * 60_000;
  await new Promise<void>((resolve) => server.listen(config.PORT, resolve));
  const port = (server.address() as AddressInfo).port;
  logger.info('gateway listening', { port });

  return {
    url: `http://127.0.0.1:${port}`,
    async stop() {
      // Stop accepting, let in-flight requests finish, then close the bus.
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await bus.drain();
    },
  };
};
