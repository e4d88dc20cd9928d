import { connectBus, type Bus } from '@esign/bus';
import { KeyCreate } from '@esign/contracts';
import { SERVICE_NAMES, type ServiceName } from '@esign/stack';
import { createLogger } from '@esign/telemetry';
import { startPrometheus, startSmtpCapture, type SmtpCapture, type TestPrometheus } from '@esign/testing';
import { startTestStack, type TestStack } from '../support/test-stack';

/** A whole stack of its own, scraped every second by a real Prometheus. */
export interface MetricsStack {
  readonly test: TestStack;
  readonly gatewayUrl: string;
  readonly prometheus: TestPrometheus;
  /** The mailer's SMTP server (with `mailer: true`). */
  readonly smtp: SmtpCapture | undefined;
  /** A bus client on the stack's prefix, to act as an operator would (create accounts). */
  readonly bus: Bus;
  stop(): Promise<void>;
}

export interface TestAccount {
  readonly apiKey: string;
  readonly keyId: string;
  readonly accountId: string;
  readonly email: string;
}

/**
 * Start every service (and the mailer, sending to an in-process SMTP server, with `mailer`), then a
 * Prometheus with one job per service over `metricsUrls()`.
 */
export const startMetricsStack = async (options: {
  label: string;
  mailer?: boolean;
  env?: Record<string, string>;
  serviceEnv?: Partial<Record<ServiceName, Record<string, string>>>;
}): Promise<MetricsStack> => {
  const smtp = options.mailer ? await startSmtpCapture() : undefined;
  const test = await startTestStack({
    label: options.label,
    services: [...SERVICE_NAMES, ...(smtp ? (['mailer'] as const) : [])],
    env: {
      LOG_LEVEL: 'warn',
      // Everything comes from one address and a few keys: the limits are tested elsewhere.
      RATE_LIMIT_PER_MINUTE: '1000000',
      AUTH_FAILURES_PER_MINUTE: '1000000',
      ...options.env,
    },
    serviceEnv: {
      ...options.serviceEnv,
      ...(smtp
        ? {
            mailer: {
              SMTP_HOST: smtp.host,
              SMTP_PORT: String(smtp.port),
              SMTP_TLS: 'none',
              PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
              ...options.serviceEnv?.mailer,
            },
          }
        : {}),
    },
  });
  const targets = Object.fromEntries(
    Object.entries(test.stack.metricsUrls()).map(([service, urls]) => [service, urls ?? []]),
  );
  const prometheus = await startPrometheus({ targets, scrapeIntervalMs: 1000 }).catch(
    async (err: unknown) => {
      await test.stop();
      await smtp?.stop();
      throw err;
    },
  );
  const bus = await connectBus({
    url: test.natsUrl,
    name: 'metrics-operator',
    prefix: test.busPrefix,
    logger: createLogger({ service: 'metrics-test', level: 'error' }),
    timeoutMs: 10_000,
  });
  return {
    test,
    gatewayUrl: test.stack.gatewayUrl,
    prometheus,
    smtp,
    bus,
    async stop() {
      await bus.drain();
      await prometheus.stop();
      await test.stop();
      await smtp?.stop();
    },
  };
};

let n = 0;
/** A new Business account with one API key, created over the bus as an operator would. */
export const createAccount = async (bus: Bus, email = `metrics${Date.now()}${n++}@example.com`) => {
  const created = await bus.request(KeyCreate, { email, plan: 'business' });
  return { apiKey: created.apiKey, keyId: created.keyId, accountId: created.accountId, email };
};

/** multipart/form-data of a signing (or a send): the fields, then the file. */
export const signForm = (
  fields: Record<string, string>,
  file?: { bytes: Buffer; name: string },
): FormData => {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  if (file)
    form.append('file', new Blob([new Uint8Array(file.bytes)], { type: 'application/pdf' }), file.name);
  return form;
};

/** POST a form to an API path with a key. */
export const postForm = (gatewayUrl: string, path: string, apiKey: string, form: FormData) =>
  fetch(`${gatewayUrl}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}` },
    body: form,
  });

/** Every process's /metrics output, as it is now. */
export const scrapeAll = async (stack: MetricsStack): Promise<{ service: string; text: string }[]> =>
  Promise.all(
    Object.entries(stack.test.stack.metricsUrls()).flatMap(([service, urls]) =>
      (urls ?? []).map(async (url) => {
        const res = await fetch(url);
        if (!res.ok) throw new Error(`${service} ${url} answered ${res.status}`);
        return { service, text: await res.text() };
      }),
    ),
  );

/** The sample lines of a Prometheus text exposition (one per series). */
export const sampleLines = (text: string): string[] =>
  text.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));

/** Every label value of every sample line. */
export const labelValues = (text: string): string[] =>
  sampleLines(text).flatMap((line) =>
    [...line.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => m[2] ?? ''),
  );
