import { BlockList, isIP } from 'node:net';
import { loadConfig, ZBaseEnv, ZBlobEnv, ZDbEnv } from '@esign/config';
import { z } from 'zod';

/**
 * The key development and test stacks encrypt endpoint secrets with when WEBHOOK_SECRET_KEY is unset
 * (refused when NODE_ENV=production): public, so it protects nothing.
 */
export const DEVELOPMENT_SECRET_KEY = Buffer.alloc(32, 'esign-development-webhook-key!!!').toString('base64');

/**
 * Delays before the 2nd, 3rd… attempt after a failure: 5 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 14 h, 20 h, 20 h (each ±20 % jitter). Eleven attempts over about 72 hours; then the delivery is failed.
 */
export const DEFAULT_RETRY_SCHEDULE_MS = [
  5_000, 60_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 72_000_000,
];

const msList = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const delays = value.split(',').map((part) => Number(part.trim()));
      if (delays.length === 0 || delays.some((d) => !Number.isInteger(d) || d < 0)) {
        ctx.addIssue({ code: 'custom', message: 'comma-separated whole milliseconds' });
        return z.NEVER;
      }
      return delays;
    });

/** `10.1.0.0/16,127.0.0.1/32,::1/128`: networks the operator lets endpoints reach despite the SSRF rules. */
const networks = (fallback: string) =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx) => {
      const list = new BlockList();
      const entries = value
        .split(',')
        .map((part) => part.trim())
        .filter(Boolean);
      for (const entry of entries) {
        const [address = '', bits] = entry.split('/');
        const family = isIP(address);
        const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
        if (family === 0 || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32)) {
          ctx.addIssue({ code: 'custom', message: `${entry}: not an address or CIDR network` });
          return z.NEVER;
        }
        list.addSubnet(address, prefix, family === 6 ? 'ipv6' : 'ipv4');
      }
      return { list, entries };
    });

/** Environment of the webhook service. */
export const ZWebhookEnv = ZBaseEnv.extend(ZDbEnv.shape)
  .extend(ZBlobEnv.shape)
  .extend({
    WEBHOOK_SECRET_KEY: z
      .string()
      .optional()
      .refine((v) => v === undefined || Buffer.from(v, 'base64').length === 32, {
        message: 'must be base64 of exactly 32 bytes (openssl rand -base64 32)',
      })
      .describe(
        'Base64 of 32 random bytes (`openssl rand -base64 32`): the AES-256-GCM key endpoint secrets are encrypted with at rest. Required in production; changing it makes existing secrets unreadable.',
      ),
    WEBHOOK_ALLOW_NETWORKS: networks('').describe(
      'Networks endpoints may reach although private or loopback (`pnpm dev`: 127.0.0.1/32).',
    ),
    WEBHOOK_RETRY_SCHEDULE_MS: msList(DEFAULT_RETRY_SCHEDULE_MS.join(',')).describe(
      'Delays between attempts after a failure, comma-separated milliseconds, each ±20 % jitter (default: 5 s, 1 min, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 20 h: eleven attempts over about 3 days); then the delivery is failed.',
    ),
    WEBHOOK_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(60_000)
      .default(10_000)
      .describe('Time one attempt may take, connection to last byte read.'),
    WEBHOOK_RESPONSE_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(0)
      .max(65_536)
      .default(4096)
      .describe("Bytes of a receiver's answer read at most (the rest is not read)."),
    WEBHOOK_DISABLE_AFTER_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(5 * 24 * 3600 * 1000)
      .describe('An endpoint whose every attempt has failed for this long is disabled (default 5 days).'),
    WEBHOOK_POLL_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(10)
      .max(60_000)
      .default(1000)
      .describe('How often the delivery loop looks for due attempts (new events wake it at once).'),
    WEBHOOK_CONCURRENCY: z.coerce
      .number()
      .int()
      .min(1)
      .max(256)
      .default(16)
      .describe('Attempts in flight at once per process.'),
    WEBHOOK_DOWNLOAD_URL_TTL_SECONDS: z.coerce
      .number()
      .int()
      .min(60)
      .max(86_400)
      .default(3600)
      .describe("Life of the signed PDF's download link in a payload (made again for every attempt)."),
    WEBHOOK_RETENTION_DAYS: z.coerce
      .number()
      .int()
      .min(1)
      .max(3650)
      .default(30)
      .describe('Finished deliveries (with their attempts) and events are kept this long, then removed.'),
    WEBHOOK_SWEEP_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(3_600_000)
      .describe('How often the retention sweep runs.'),
    S3_PUBLIC_ENDPOINT: z
      .url()
      .optional()
      .describe('Object storage as receivers reach it, for download links (default: S3_ENDPOINT).'),
  })
  .superRefine((env, ctx) => {
    if (env.NODE_ENV === 'production' && env.WEBHOOK_SECRET_KEY === undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['WEBHOOK_SECRET_KEY'],
        message: 'required in production (openssl rand -base64 32)',
      });
    }
  });
export type TWebhookConfig = z.infer<typeof ZWebhookEnv>;

/** Parse the webhook service's configuration once, failing fast with every problem named. */
export const loadWebhookConfig = (env: NodeJS.ProcessEnv = process.env): TWebhookConfig =>
  loadConfig(ZWebhookEnv, env);
