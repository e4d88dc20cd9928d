import { loadConfig, ZBaseEnv, ZBlobEnv, ZPort } from '@esign/config';
import { z } from 'zod';

export const ZGatewayConfig = ZBaseEnv.extend(ZBlobEnv.shape).extend({
  PORT: ZPort.default(8080),
  /** Origin clients use to reach this gateway (links in pages and docs). */
  PUBLIC_BASE_URL: z.url().optional(),
  /** How many proxies in front of the gateway to trust for the client IP (X-Forwarded-For). */
  TRUST_PROXY: z.coerce.number().int().min(0).default(0),
  /** Requests per minute per API key (and per IP for unauthenticated routes). */
  RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(600),
  /** How often a replica tells the others what it counted (ms): how far behind their counts can be. */
  RATE_LIMIT_SYNC_MS: z.coerce.number().int().min(10).max(10_000).default(250),
  /** How long a verified key stays cached; revocation evicts it at once regardless. */
  KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).default(60_000),
  /** Upload limit of POST /api/v1/sign. */
  SIGN_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(25 * 1024 * 1024),
  /** Time the signer may take for one document. */
  SIGN_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
});
export type TGatewayConfig = z.infer<typeof ZGatewayConfig>;

export const loadGatewayConfig = (env: NodeJS.ProcessEnv = process.env): TGatewayConfig =>
  loadConfig(ZGatewayConfig, env);
