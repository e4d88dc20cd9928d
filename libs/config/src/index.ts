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
  NODE_ENV: z
    .enum(['development', 'test', 'production'])
    .default('development')
    .describe(
      '`production` refuses what is only for development and tests: pdf-signer without TSA_URLS, webhook without WEBHOOK_SECRET_KEY, document-store with SIGNING_TEST_CLOCK_FILE.',
    ),
  LOG_LEVEL: z
    .enum(['debug', 'info', 'warn', 'error'])
    .default('info')
    .describe('Lowest level of the JSON log lines written to stdout: `debug`, `info`, `warn` or `error`.'),
  NATS_URL: z.string().default('nats://127.0.0.1:4222').describe('NATS server(s), comma-separated.'),
  BUS_PREFIX: z
    .string()
    .regex(/^([a-z0-9_-]+\.)?$/, 'lowercase letters, digits, _ or -, ending in a dot')
    .default('')
    .describe('Prefix for every subject and stream, so that several stacks can share one NATS (tests).'),
  HEALTH_PORT: port
    .default(0)
    .describe(
      "Operations port: /healthz, /readyz and /metrics (the gateway's API has a port of its own, PORT). 0 picks a free port.",
    ),
  METRICS_EXPORTER: z
    .enum(['prometheus', 'otlp', 'none'])
    .default('prometheus')
    .describe(
      '`prometheus` serves metrics at /metrics on HEALTH_PORT; `otlp` pushes them to an OpenTelemetry collector (OTEL_EXPORTER_OTLP_METRICS_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT); `none` records nothing (docs/operations.md).',
    ),
  BUS_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(30_000)
    .describe('Time a request to another service may take before it is answered as unavailable.'),
  BUS_STREAM_REPLICAS: z.coerce
    .number()
    .int()
    .min(1)
    .max(5)
    .default(1)
    .describe(
      'Servers of a NATS cluster each JetStream stream is replicated on (its durable consumers follow it): 1 on a single nats-server, 3 on a three-server cluster (helm/esign, docs/faults.md). A stream that exists with another count is updated to it.',
    ),
  SHUTDOWN_GRACE_MS: z.coerce
    .number()
    .int()
    .min(1000)
    .max(600_000)
    .default(20_000)
    .describe(
      "On SIGTERM, how long the service may take to finish its in-flight work before it exits anyway. Kubernetes' terminationGracePeriodSeconds must cover it plus the preStop delay (helm/esign).",
    ),
});
export type TBaseEnv = z.infer<typeof ZBaseEnv>;

/** Object storage (MinIO or any S3). */
export const ZBlobEnv = z.object({
  S3_ENDPOINT: z
    .url()
    .default('http://127.0.0.1:9000')
    .describe('Object storage (MinIO or any S3-compatible store) as the services reach it.'),
  S3_ACCESS_KEY: z.string().default('minioadmin').describe('Access key of the object storage.'),
  S3_SECRET_KEY: z.string().default('minioadmin').describe('Secret key of the object storage.'),
  S3_BUCKET: z
    .string()
    .default('esign')
    .describe('The bucket of uploads, signed and generated PDFs (created at start-up when missing).'),
  S3_REGION: z
    .string()
    .default('us-east-1')
    .describe('Region the requests to the object storage are signed for.'),
});
export type TBlobEnv = z.infer<typeof ZBlobEnv>;

/** A Postgres connection string; each service keeps its data in its own schema of this database. */
export const ZDbEnv = z.object({
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .describe(
      'Postgres connection string; each service keeps its tables in its own schema of this database.',
    ),
  DB_POOL_MAX: z.coerce
    .number()
    .int()
    .positive()
    .default(10)
    .describe('Connections the service keeps open to Postgres at most.'),
});
export type TDbEnv = z.infer<typeof ZDbEnv>;

export { port as ZPort };
export { describeEnv, type EnvVariable } from './describe-env';
