import type { BlobStore } from '@esign/blob';
import type { Bus } from '@esign/bus';
import type { Logger } from '@esign/telemetry';
import type { IdempotencyStore } from './api/idempotency';
import type { TGatewayConfig } from './config';
import type { KeyCache } from './http/key-cache';
import type { RateCounter } from './http/rate-counter';
import type { EdgeMetrics } from './http/request-metrics';
import { createEmbedOriginsCache } from './operations/embed-origins-cache';
import { createEnvelopePorts, type EnvelopePorts } from './operations/envelope-ports';
import { createSigningPorts, type SigningPorts } from './operations/ports';
import { createSendingPorts, type SendingPorts } from './operations/sending-ports';
import { createSigningLinkPorts, type SigningLinkPorts } from './operations/signing-link-ports';
import { createTemplatePorts, type TemplatePorts } from './operations/template-ports';
import { createVerifyingPorts, type VerifyingPorts } from './operations/verifying-ports';

/** What the gateway's operations are built from; wired once in start.ts. */
export interface GatewayDeps {
  config: TGatewayConfig;
  bus: Bus;
  blob: BlobStore;
  logger: Logger;
  /** The edge's request metrics (created once, from the catalog). */
  metrics: EdgeMetrics;
  keyCache: KeyCache;
  /** Requests per rate-limit key in the current window, across replicas. */
  rateCounter: RateCounter;
  /** The operation layer's Idempotency-Keys (`idempotency: 'replay'`), across replicas. */
  idempotency: IdempotencyStore;
  /** The sign workflow's view of the services behind the bus and of object storage. */
  signing: SigningPorts;
  /** The send workflow's view of the signer, document-store and object storage. */
  sending: SendingPorts;
  /** Verification's view of the signer's verifier and of the documents we issued. */
  verifying: VerifyingPorts;
  /** The public signing page's view of signing requests by link, of their originals and of signing. */
  signingLink: SigningLinkPorts;
  /** Envelopes' view of document-store's envelopes, the signer and object storage. */
  envelopes: EnvelopePorts;
  /** Template filling's view of the template service and of the PDFs it stores. */
  templates: TemplatePorts;
}

/** What the ports are built from: the connections and the edge's own state. */
export type GatewayBase = Pick<
  GatewayDeps,
  'config' | 'bus' | 'blob' | 'logger' | 'metrics' | 'keyCache' | 'rateCounter' | 'idempotency'
>;

/** Every workflow's ports on the bus and object storage of `base` (start-up and its rehearsal). */
export const composeDeps = (base: GatewayBase): GatewayDeps => {
  const { config, bus, blob, logger } = base;
  const signing = createSigningPorts({ bus, blob, logger, signTimeoutMs: config.SIGN_TIMEOUT_MS });
  return {
    ...base,
    signing,
    sending: createSendingPorts({ bus, blob, logger, inspectTimeoutMs: config.SIGN_TIMEOUT_MS }),
    verifying: createVerifyingPorts({ bus }),
    signingLink: createSigningLinkPorts({ bus, blob, signing, logger }),
    templates: createTemplatePorts({ bus, blob, logger }),
    envelopes: createEnvelopePorts({
      bus,
      blob,
      logger,
      signTimeoutMs: config.SIGN_TIMEOUT_MS,
      embedOriginsCache: createEmbedOriginsCache({ ttlMs: config.EMBED_ORIGINS_CACHE_TTL_MS }),
    }),
  };
};
