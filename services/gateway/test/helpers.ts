import type { Logger } from '@esign/telemetry';
import type { TestS3 } from '@esign/testing';
import { loadGatewayConfig } from '../src/config';
import { startGateway, type RunningGateway } from '../src/start';

/** A gateway on the test's NATS prefix and S3 server, on a free port, with `env` on top. */
export const startTestGateway = (
  infra: { natsUrl: string; prefix: string; s3: TestS3 },
  env: Record<string, string>,
  logger: Logger,
): Promise<RunningGateway> =>
  startGateway(
    loadGatewayConfig({
      PORT: '0',
      NATS_URL: infra.natsUrl,
      BUS_PREFIX: infra.prefix,
      S3_ENDPOINT: infra.s3.endpoint,
      S3_ACCESS_KEY: infra.s3.accessKey,
      S3_SECRET_KEY: infra.s3.secretKey,
      LOG_LEVEL: 'error',
      ...env,
    }),
    { logger },
  );
