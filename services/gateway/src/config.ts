import { loadConfig, ZBaseEnv, ZBlobEnv, ZPort } from '@esign/config';
import { z } from 'zod';

export const ZGatewayConfig = ZBaseEnv.extend(ZBlobEnv.shape).extend({
  PORT: ZPort.default(8080).describe('HTTP port of the API, the pages, /healthz and /readyz.'),
  PUBLIC_BASE_URL: z
    .url()
    .optional()
    .describe(
      "Origin clients use to reach this gateway (links in pages and docs, and the origin the dashboard's CSRF check requires; without it the request's own scheme and Host are used).",
    ),
  TRUST_PROXY: z.coerce
    .number()
    .int()
    .min(0)
    .default(0)
    .describe('How many proxies in front of the gateway to trust for the client IP (X-Forwarded-For).'),
  RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(600)
    .describe('Requests per minute per API key (and per IP for unauthenticated routes).'),
  RATE_LIMIT_SYNC_MS: z.coerce
    .number()
    .int()
    .min(10)
    .max(10_000)
    .default(250)
    .describe(
      'How often a replica tells the others what it counted (ms): how far behind their counts can be.',
    ),
  AUTH_FAILURES_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(60)
    .describe(
      'Failed authentications per client IP and minute before that IP is refused (429) without a lookup.',
    ),
  REJECTED_KEY_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(30_000)
    .describe('How long a key the key service did not know is answered 401 without asking it again.'),
  SANDBOX_TOKEN: z
    .string()
    .regex(/^svc_sandbox_[A-Za-z0-9_]{8,64}$/, 'must be svc_sandbox_ and 8-64 letters, digits or _')
    .default('svc_sandbox_public_demo')
    .describe(
      "The deployment's public sandbox token (POST /api/v1/sandbox/sign). It is public on purpose: it is shown on /docs, in docs/api.md and in the Postman environment; it signs nothing and stores nothing.",
    ),
  SANDBOX_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(60)
    .describe('Sandbox requests per minute per client IP.'),
  EMBED_ORIGINS_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(30_000)
    .describe(
      "How long an account's embed origins stay cached for embedded link pages (0: not cached). A change through this replica applies at once; other replicas see it within this time.",
    ),
  KEY_CACHE_TTL_MS: z.coerce
    .number()
    .int()
    .min(0)
    .default(60_000)
    .describe('How long a verified key stays cached; revocation evicts it at once regardless.'),
  SESSION_COOKIE_SECURE: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true')
    .describe(
      'Whether the dashboard session cookie is Secure and named `__Host-esign_session` (https). Set to false only for plain http in local development (`pnpm dev`, the e2e stack): the cookie is then `esign_session` without Secure.',
    ),
  VERIFY_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(30)
    .describe('POST /api/v1/verify requests per minute per client IP (public, no key).'),
  AUTH_RATE_LIMIT_PER_MINUTE: z.coerce
    .number()
    .int()
    .positive()
    .default(10)
    .describe(
      'Sign-in and sign-up attempts per minute per client IP (the key service also limits per email).',
    ),
  SIGN_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(25 * 1024 * 1024)
    .describe("Upload limit of POST /api/v1/sign (a plan's own limit applies below it)."),
  SEND_MAX_FILE_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024)
    .describe('Upload limit of POST /api/v1/send (the PDF a recipient is asked to sign).'),
  SIGN_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(60_000)
    .describe('Time the signer may take for one document.'),
});
export type TGatewayConfig = z.infer<typeof ZGatewayConfig>;

export const loadGatewayConfig = (env: NodeJS.ProcessEnv = process.env): TGatewayConfig =>
  loadConfig(ZGatewayConfig, env);
