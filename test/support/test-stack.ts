import { startServices, type RunningStack, type StackOptions } from '@esign/stack';
import {
  createTestDatabase,
  startTestS3,
  startTestTsa,
  testNatsUrl,
  uniqueBusPrefix,
  type TestDatabase,
  type TestS3,
  type TestTsa,
} from '@esign/testing';

export interface TestStack {
  readonly stack: RunningStack;
  readonly natsUrl: string;
  readonly busPrefix: string;
  readonly s3: TestS3;
  /** The local RFC 3161 TSA (openssl) that pdf-signer timestamps with; `setMode` makes it fail. */
  readonly tsa: TestTsa;
  /** The stack's database (every service's schema), to take it away in outage tests. */
  readonly database: TestDatabase;
  /** More processes of the same stack (for example a second gateway replica). */
  startMore(options: Pick<StackOptions, 'services'>): Promise<RunningStack>;
  /** Stop every process, the S3 server, and drop the database. */
  stop(): Promise<void>;
}

/**
 * A whole stack on test infrastructure: NATS and Postgres from NATS_URL / DATABASE_URL (testcontainers
 * otherwise), a fresh database, the embedded S3-protocol server, a local time-stamping authority
 * (`openssl ts -reply`, TSA_URLS of pdf-signer unless the caller sets it) and a bus prefix of its own,
 * so that several stacks can share the servers. Used by the end-to-end suite and the benchmark.
 */
export const startTestStack = async (
  options: { label: string } & Partial<Omit<StackOptions, 'natsUrl' | 'databaseUrl' | 's3' | 'busPrefix'>>,
): Promise<TestStack> => {
  const { label, ...rest } = options;
  const natsUrl = await testNatsUrl();
  const db = await createTestDatabase(`esign_${label}`);
  const s3 = await startTestS3();
  const tsa = await startTestTsa();
  const busPrefix = uniqueBusPrefix(label);
  const stackOptions: StackOptions = {
    gatewayPort: 0,
    ...rest,
    serviceEnv: {
      ...rest.serviceEnv,
      // A short warm-up: test stacks start (and restart) services often; the default is 3 s.
      'pdf-signer': { TSA_URLS: tsa.url, SIGN_WARM_UP_MS: '300', ...rest.serviceEnv?.['pdf-signer'] },
    },
    natsUrl,
    databaseUrl: db.url,
    s3: { ...s3, bucket: 'esign' },
    busPrefix,
  };
  const more: RunningStack[] = [];
  const cleanUp = async () => {
    await s3.stop();
    await tsa.stop();
    await db.drop();
  };
  const stack = await startServices(stackOptions).catch(async (err: unknown) => {
    await cleanUp();
    throw err;
  });
  return {
    stack,
    natsUrl,
    busPrefix,
    s3,
    tsa,
    database: db,
    async startMore(extra) {
      const started = await startServices({ ...stackOptions, ...extra, gatewayPort: 0 });
      more.push(started);
      return started;
    },
    async stop() {
      for (const s of more) await s.stop();
      await stack.stop();
      await cleanUp();
    },
  };
};
