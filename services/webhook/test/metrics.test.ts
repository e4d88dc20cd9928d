import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, type Bus } from '@esign/bus';
import { SigningViewed, WebhookCreate } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import {
  createTestDatabase,
  metricValue,
  promtoolCheckMetrics,
  scrapeMetrics,
  startWebhookReceiver,
  testNatsUrl,
  uniqueBusPrefix,
  type TestDatabase,
  type WebhookReceiver,
  consumerLags,
} from '@esign/testing';
import { loadWebhookConfig, startWebhookService, type WebhookService } from '../src';

// The service on real NATS and Postgres and real time, with real HTTP receivers on 127.0.0.3; one
// retry 100 ms after a first failure, then none.
let database: TestDatabase;
let bus: Bus;
let service: WebhookService;
const receivers: WebhookReceiver[] = [];
const quiet = createLogger({ service: 'webhook-test', level: 'error', write: () => undefined });

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  const prefix = uniqueBusPrefix('webhookmetrics');
  database = await createTestDatabase('webhook_metrics_t');
  service = await startWebhookService(
    loadWebhookConfig({
      NATS_URL: natsUrl,
      BUS_PREFIX: prefix,
      DATABASE_URL: database.url,
      WEBHOOK_ALLOW_NETWORKS: '127.0.0.3/32',
      WEBHOOK_RETRY_SCHEDULE_MS: '100',
      WEBHOOK_POLL_INTERVAL_MS: '20',
      WEBHOOK_TIMEOUT_MS: '2000',
      METRICS_EXPORTER: 'prometheus',
    }),
    { logger: quiet },
  );
  bus = await connectBus({ url: natsUrl, name: 'webhook-test', prefix, logger: quiet, timeoutMs: 10_000 });
});

afterAll(async () => {
  for (const r of receivers) await r.close();
  await bus?.drain();
  await service?.stop();
  await database?.drop();
});

const receiver = async (status: number) => {
  const r = await startWebhookReceiver();
  r.respond((_req, _n, res) => {
    res.statusCode = status;
    res.end();
  });
  receivers.push(r);
  return r;
};

/** An endpoint of a new account for `signing.viewed`, and that event published once. */
const viewedAt = async (url: string) => {
  const accountId = randomUUID();
  await bus.request(WebhookCreate, { accountId, url, eventTypes: ['signing.viewed'] });
  const eventId = randomUUID();
  await bus.publish(
    SigningViewed,
    {
      eventId,
      sendId: `send_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
      auditId: 'ESG-AAAA-BBBB-CCCC',
      accountId,
      senderEmail: 'sender@example.com',
      recipientEmail: 'rita@example.com',
      recipientName: 'Rita Recipient',
      fileName: 'lease.pdf',
      viewedAt: new Date().toISOString(),
    },
    { msgId: eventId },
  );
};

const scrape = () => scrapeMetrics(service.healthPort);
const viewedDeliveries = async (outcome: string) =>
  metricValue(await scrape(), 'esign_webhook_deliveries_total', {
    esign_event: 'signing.viewed',
    esign_outcome: outcome,
  }) ?? 0;

describe('the webhook service’s metrics', () => {
  it('counts a delivery the receiver took as delivered, with its lag', async () => {
    const r = await receiver(204);
    await viewedAt(r.url);
    await r.waitFor(1);
    await expect.poll(() => viewedDeliveries('delivered'), { timeout: 10_000 }).toBe(1);
    const text = await scrape();
    expect(metricValue(text, 'esign_webhook_delivery_lag_count', { esign_event: 'signing.viewed' })).toBe(1);
    expect(
      metricValue(text, 'esign_webhook_delivery_lag_sum', { esign_event: 'signing.viewed' }),
    ).toBeGreaterThan(0);
  });

  it('counts a failed attempt with a retry to come as retried, and the last one as dead-lettered', async () => {
    const r = await receiver(500);
    await viewedAt(r.url);
    await r.waitFor(2);
    await expect.poll(() => viewedDeliveries('dead_lettered'), { timeout: 10_000 }).toBe(1);
    expect(await viewedDeliveries('retried')).toBe(1);
    expect(await viewedDeliveries('delivered')).toBe(1);
  });

  it('counts an endpoint disabled for answering 410', async () => {
    const r = await receiver(410);
    await viewedAt(r.url);
    await expect
      .poll(
        async () =>
          metricValue(await scrape(), 'esign_webhook_endpoints_disabled_total', { esign_reason: 'gone' }),
        { timeout: 10_000 },
      )
      .toBe(1);
    expect(await viewedDeliveries('dead_lettered')).toBe(2);
  });

  it('reports its consumers’ lag, and serves text promtool accepts', async () => {
    const durables = ['webhook-document-signed', 'webhook-signing-viewed', 'webhook-signing-expired'];
    const lags = async () => consumerLags(await scrape(), durables);
    await expect.poll(lags, { timeout: 10_000 }).toEqual(durables.map(() => [0, 0]));
    expect(await promtoolCheckMetrics(await scrape())).toEqual({ code: 0, output: '' });
  });
});
