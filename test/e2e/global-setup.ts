import type { TestProject } from 'vitest/node';
import { startServices } from '@esign/stack';
import { createTestDatabase, startTestS3, testNatsUrl, uniqueBusPrefix } from '@esign/testing';

export interface StackInfo {
  gatewayUrl: string;
  natsUrl: string;
  busPrefix: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}

/** One whole stack (every service as its own process) on real NATS, Postgres and the S3-protocol server. */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const natsUrl = await testNatsUrl();
  const db = await createTestDatabase('esign_e2e');
  const s3 = await startTestS3();
  const busPrefix = uniqueBusPrefix('e2e');
  const logs: string[] = [];
  const stack = await startServices({
    natsUrl,
    databaseUrl: db.url,
    s3: { ...s3, bucket: 'esign' },
    busPrefix,
    gatewayPort: 0,
    env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000' },
    onLine: (service, line) => {
      logs.push(`${service} | ${line}`);
      if (process.env.E2E_LOGS) console.log(`${service} | ${line}`);
    },
  }).catch(async (err: unknown) => {
    await db.drop();
    await s3.stop();
    throw err;
  });
  project.provide('stack', { gatewayUrl: stack.gatewayUrl, natsUrl, busPrefix });
  return async () => {
    await stack.stop();
    await s3.stop();
    await db.drop();
    const errors = logs.filter((l) => l.includes('"level":"error"'));
    if (errors.length) console.log(`service errors during the e2e run:\n${errors.join('\n')}`);
  };
}
