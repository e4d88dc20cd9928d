import { z } from 'zod';

/** Thrown when the environment does not describe a runnable service; the message lists every problem. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/**
 * Parse configuration from environment variables once, at start-up. Fails fast with one message that
 * names every missing or invalid variable.
 */
export const loadConfig = <S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.infer<S> => {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map(
    (issue) => `  ${issue.path.join('.') || '(env)'}: ${issue.message}`,
  );
  throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
};

const port = z.coerce.number().int().min(0).max(65535);

/** Variables every service reads. */
export const ZBaseEnv = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error']).default('info'),
  /** NATS server(s), comma-separated. */
  NATS_URL: z.string().default('nats://127.0.0.1:4222'),
  /** Prefix for every subject and stream, so that several stacks can share one NATS (tests). */
  BUS_PREFIX: z
    .string()
    .regex(/^([a-z0-9_-]+\.)?$/, 'lowercase letters, digits, _ or -, ending in a dot')
    .default(''),
  /** Port of /healthz and /readyz for services without an HTTP API of their own. */
  HEALTH_PORT: port.default(0),
  /** Time a request to another service may take before it is answered as unavailable. */
  BUS_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
  /**
   * On SIGTERM, how long the service may take to finish its in-flight work before it exits anyway.
   * Kubernetes' terminationGracePeriodSeconds must cover it plus the preStop delay (helm/esign).
   */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(1000).max(600_000).default(20_000),
});
export type TBaseEnv = z.infer<typeof ZBaseEnv>;

/** Object storage (MinIO or any S3). */
export const ZBlobEnv = z.object({
  S3_ENDPOINT: z.url().default('http://127.0.0.1:9000'),
  S3_ACCESS_KEY: z.string().default('minioadmin'),
  S3_SECRET_KEY: z.string().default('minioadmin'),
  S3_BUCKET: z.string().default('esign'),
  S3_REGION: z.string().default('us-east-1'),
});
export type TBlobEnv = z.infer<typeof ZBlobEnv>;

/** A Postgres connection string; each service keeps its data in its own schema of this database. */
export const ZDbEnv = z.object({
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL'),
  DB_POOL_MAX: z.coerce.number().int().positive().default(10),
});
export type TDbEnv = z.infer<typeof ZDbEnv>;

export { port as ZPort };
