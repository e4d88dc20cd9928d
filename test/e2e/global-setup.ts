import type { TestProject } from 'vitest/node';
import { buildWebPages, startTestStack } from '@esign/stack';

export interface StackInfo {
  gatewayUrl: string;
  natsUrl: string;
  busPrefix: string;
  /** The embedded S3-protocol server (bucket `esign`), to look at what the stack stored. */
  s3: { endpoint: string; accessKey: string; secretKey: string; region: string };
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
  const test = await startTestStack({
    label: 'e2e',
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
  });
  return async () => {
    await test.stop();
    const errors = logs.filter((l) => l.includes('"level":"error"'));
    if (errors.length) console.log(`service errors during the e2e run:\n${errors.join('\n')}`);
  };
}
