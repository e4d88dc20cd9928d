import type { BlobStore } from '@esign/blob';
import type { Bus } from '@esign/bus';
import type { Logger } from '@esign/telemetry';
import type { TGatewayConfig } from './config';
import type { KeyCache } from './http/key-cache';
import type { RateCounter } from './http/rate-counter';

/** What the gateway's routes are built from; wired once in start.ts. */
export interface GatewayDeps {
  config: TGatewayConfig;
  bus: Bus;
  blob: BlobStore;
  logger: Logger;
  keyCache: KeyCache;
  /** Requests per rate-limit key in the current window, across replicas. */
  rateCounter: RateCounter;
}
