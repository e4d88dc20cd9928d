import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, encodeJson, type Bus } from '@esign/bus';
import { DocumentSigned } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import {
  createTestDatabase,
  metricValue,
  promtoolCheckMetrics,
  scrapeMetrics,
  testNatsUrl,
  uniqueBusPrefix,
  type TestDatabase,
} from '@esign/testing';
import { loadKeyServiceConfig } from '../src/config';
import { startKeyService, type KeyService } from '../src/start';

let database: TestDatabase;
let sut: KeyService;
let client: Bus;
let prefix: string;

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  database = await createTestDatabase('key_metrics_t');
  prefix = uniqueBusPrefix('keymetrics');
  sut = await startKeyService(
    loadKeyServiceConfig({
      DATABASE_URL: database.url,
      NATS_URL: natsUrl,
      BUS_PREFIX: prefix,
      LOG_LEVEL: 'error',
      METRICS_EXPORTER: 'prometheus',
    }),
    { logger: createLogger({ service: 'key', level: 'error', write: () => undefined }) },
  );
  client = await connectBus({
    url: natsUrl,
    name: 'key-test',
    prefix,
    logger: createLogger({ service: 'key-test', level: 'error' }),
    timeoutMs: 5000,
  });
});

afterAll(async () => {
  await client?.drain();
  await sut?.stop();
  await database?.drop();
});

describe('the key service’s metrics', () => {
  it('reports its consumer’s lag and the events it parked, in text promtool accepts', async () => {
    const group = { messaging_consumer_group_name: 'key-count-documents' };
    await client.jetstream.publish(`${prefix}${DocumentSigned.subject}`, encodeJson({ documentId: 'nope' }));
    await expect
      .poll(
        async () => {
          const text = await scrapeMetrics(sut.healthPort);
          return [
            metricValue(text, 'esign_bus_consumer_parked_total', { ...group, esign_reason: 'contract' }),
            metricValue(text, 'esign_bus_consumer_pending', group),
            metricValue(text, 'esign_bus_consumer_ack_pending', group),
          ];
        },
        { timeout: 10_000 },
      )
      .toEqual([1, 0, 0]);
    expect(await promtoolCheckMetrics(await scrapeMetrics(sut.healthPort))).toEqual({ code: 0, output: '' });
  });
});
