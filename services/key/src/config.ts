import { loadConfig, ZBaseEnv, ZDbEnv } from '@esign/config';
import { z } from 'zod';

const ms = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const MINUTE = 60_000;

/** Lifetimes, limits and password hashing cost of accounts and sessions. */
export const ZAccountEnv = z.object({
  SESSION_IDLE_TIMEOUT_MS: ms(30 * MINUTE).describe(
    'A session ends after this long without a verification (sliding).',
  ),
  SESSION_ABSOLUTE_TIMEOUT_MS: ms(12 * 60 * MINUTE).describe(
    'A session ends this long after sign-in, however active.',
  ),
  SESSION_TOUCH_INTERVAL_MS: ms(MINUTE).describe(
    "A session's last-seen time is written at most this often (the idle deadline's resolution).",
  ),
  SIGN_IN_TOKEN_TTL_MS: ms(15 * MINUTE).describe("How long an emailed sign-in link's token stays usable."),
  SIGN_IN_MAX_ATTEMPTS: z.coerce
    .number()
    .int()
    .positive()
    .default(10)
    .describe(
      'Password sign-in attempts allowed per email in one window; further attempts answer rate_limited.',
    ),
  SIGN_IN_ATTEMPT_WINDOW_MS: ms(15 * MINUTE).describe(
    'The attempts window: it starts at the first attempt and ends this much later.',
  ),
  SIGN_IN_LINK_MAX_PER_EMAIL: z.coerce
    .number()
    .int()
    .positive()
    .default(3)
    .describe('Sign-in link requests allowed per email address in one (sliding) window; more send no email.'),
  SIGN_IN_LINK_WINDOW_MS: ms(15 * MINUTE).describe('The sign-in link window.'),
  PASSWORD_SCRYPT_LOG_N: z.coerce
    .number()
    .int()
    .min(14)
    .max(20)
    .default(15)
    .describe(
      'scrypt cost as log2(N), with r = 8 and p = 1. 15 is 32 MiB and about 120 ms per hash on the 2-core development VM; 14 is the floor. Stored with each hash, so raising it rehashes at the next sign-in.',
    ),
  PURGE_INTERVAL_MS: ms(10 * MINUTE).describe(
    'How often expired sessions, sign-in tokens and attempt windows are deleted.',
  ),
});
export type TAccountConfig = z.infer<typeof ZAccountEnv>;

/** Environment of the key service. */
export const ZKeyServiceEnv = ZBaseEnv.extend(ZDbEnv.shape).extend(ZAccountEnv.shape);
export type TKeyServiceConfig = z.infer<typeof ZKeyServiceEnv>;

/** Parse the key service's configuration once, failing fast with every problem named. */
export const loadKeyServiceConfig = (env: NodeJS.ProcessEnv = process.env): TKeyServiceConfig =>
  loadConfig(ZKeyServiceEnv, env);

/** Environment of the operator CLI: only where the bus is. */
export const ZCliEnv = ZBaseEnv.pick({ NATS_URL: true, BUS_PREFIX: true });
export type TCliConfig = z.infer<typeof ZCliEnv>;

export const loadCliConfig = (env: NodeJS.ProcessEnv = process.env): TCliConfig => loadConfig(ZCliEnv, env);
