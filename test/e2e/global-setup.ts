import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildWebPages, freePort, SERVICE_NAMES } from '@esign/stack';
import { startTestStack } from '../support/test-stack';
import { startSmtpCapture } from '@esign/testing';

export interface StackInfo {
  gatewayUrl: string;
  natsUrl: string;
  busPrefix: string;
  /** The embedded S3-protocol server (bucket `esign`), to look at what the stack stored. */
  s3: { endpoint: string; accessKey: string; secretKey: string; region: string };
  /** Every email the mailer sent, one `.eml` file each (an in-process SMTP server of this setup). */
  mailDir: string;
  /** Every line the services printed (the gateway at level info: one line per request). */
  logFile: string;
  /** Milliseconds added to document-store's signing clock (SIGNING_TEST_CLOCK_FILE): write to move time. */
  clockFile: string;
  /** Each process's /metrics URL, by service (`RunningStack.metricsUrls()`). */
  metricsUrls: Partial<Record<string, string[]>>;
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}

/** One whole stack (every service as its own process) on real NATS, Postgres and the S3-protocol server. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // The pages the gateway serves (signing page, dashboard, verification) are built from source first.
  buildWebPages();
  const logs: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'esign-e2e-'));
  const mailDir = join(dir, 'mail');
  const logFile = join(dir, 'stack.log');
  const clockFile = join(dir, 'clock');
  writeFileSync(clockFile, '0');
  writeFileSync(logFile, '');
  // The mailer sends to this SMTP server, which writes each message as an .eml file the tests read.
  const smtp = await startSmtpCapture({ directory: mailDir });
  const gatewayPort = await freePort();
  const test = await startTestStack({
    label: 'e2e',
    gatewayPort,
    services: [...SERVICE_NAMES, 'mailer'],
    serviceEnv: {
      mailer: {
        SMTP_HOST: smtp.host,
        SMTP_PORT: String(smtp.port),
        SMTP_TLS: 'none',
        PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}`,
        MAIL_RETRY_DELAYS_MS: '200,500,1000',
        // What it sent, skipped or left alone (a redelivered event): the send tests read it.
        LOG_LEVEL: 'info',
      },
      'document-store': { SIGNING_TEST_CLOCK_FILE: clockFile, SIGNING_SWEEP_INTERVAL_MS: '500' },
      // A short warm-up (the default, 3 s, would lengthen every run's start-up; the suite's own first
      // requests warm it up the rest of the way): the warm-up itself is tested in services/pdf-signer.
      'pdf-signer': { SIGN_WARM_UP_MS: '300' },
      // One line per request: the signing-link tests read them (a token must never be in one).
      gateway: { LOG_LEVEL: 'info' },
      // The suite's webhook receivers listen on 127.0.0.3 only; 127.0.0.1 (and so `localhost`) stays
      // refused, as in production, for the SSRF tests.
      webhook: { WEBHOOK_ALLOW_NETWORKS: '127.0.0.3/32', WEBHOOK_RETRY_SCHEDULE_MS: '300,300,300,300' },
    },
    env: {
      LOG_LEVEL: 'warn',
      // The suite sends everything from one address: limits are tested on their own (gateway's edge test).
      RATE_LIMIT_PER_MINUTE: '100000',
      AUTH_FAILURES_PER_MINUTE: '100000',
      SANDBOX_RATE_LIMIT_PER_MINUTE: '100000',
      AUTH_RATE_LIMIT_PER_MINUTE: '100000',
      VERIFY_RATE_LIMIT_PER_MINUTE: '100000',
      // Plain http: the session cookie is `esign_session`, without Secure (the `__Host-` name needs https).
      SESSION_COOKIE_SECURE: 'false',
    },
    onLine: (service, line) => {
      appendFileSync(logFile, `${service} | ${line}\n`);
      if ((service === 'gateway' || service === 'mailer') && line.includes('"level":"info"')) return;
      logs.push(`${service} | ${line}`);
      if (process.env.E2E_LOGS) console.log(`${service} | ${line}`);
    },
  });
  project.provide('stack', {
    gatewayUrl: test.stack.gatewayUrl,
    natsUrl: test.natsUrl,
    busPrefix: test.busPrefix,
    s3: {
      endpoint: test.s3.endpoint,
      accessKey: test.s3.accessKey,
      secretKey: test.s3.secretKey,
      region: test.s3.region,
    },
    mailDir,
    logFile,
    clockFile,
    metricsUrls: test.stack.metricsUrls(),
  });
  return async () => {
    await test.stop();
    await smtp.stop();
    rmSync(dir, { recursive: true, force: true });
    const errors = logs.filter((l) => l.includes('"level":"error"'));
    if (errors.length) console.log(`service errors during the e2e run:\n${errors.join('\n')}`);
  };
}
