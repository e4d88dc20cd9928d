import type { BlobStore } from '@esign/blob';
import type { Bus } from '@esign/bus';
import type { Logger } from '@esign/telemetry';
import type { IdempotencyStore } from './api/idempotency';
import type { TGatewayConfig } from './config';
import type { KeyCache } from './http/key-cache';
import type { RateCounter } from './http/rate-counter';
import type { EdgeMetrics } from './http/request-metrics';
import type { SigningPorts } from './operations/ports';
import type { EnvelopePorts } from './operations/envelope-ports';
import type { SendingPorts } from './operations/sending-ports';
import type { SigningLinkPorts } from './operations/signing-link-ports';
import type { TemplatePorts } from './operations/template-ports';
import type { VerifyingPorts } from './operations/verifying-ports';

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
