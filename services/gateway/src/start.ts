import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KeyRevoked } from '@esign/contracts';
import { blobOptionsFrom, createBlobStore } from '@esign/blob';
import { busOptionsFrom, connectBus } from '@esign/bus';
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
  const bus = await connectBus({ ...busOptionsFrom(config), name: 'gateway', logger });
  const blob = createBlobStore(blobOptionsFrom(config));
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
