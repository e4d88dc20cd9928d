import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, encodeJson, type Bus } from '@esign/bus';
import { SigningDeclined, SigningRequested, type TSigningDeclinedEvent } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import {
  createTestDatabase,
  metricValue,
  promtoolCheckMetrics,
  scrapeMetrics,
  startSmtpCapture,
  startTestS3,
  testNatsUrl,
  uniqueBusPrefix,
  type SmtpCapture,
  type TestDatabase,
  type TestS3,
  consumerLags,
} from '@esign/testing';
import { loadMailerConfig, startMailerService, type MailerService } from '../src';

let database: TestDatabase;
let s3: TestS3;
let smtp: SmtpCapture;
let docs: Bus;
let mailer: MailerService;
let prefix: string;

const declined = (): TSigningDeclinedEvent => ({
  eventId: randomUUID(),
  sendId: `send_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
  auditId: 'ESG-ABCD-EFGH-JKLM',
  accountId: randomUUID(),
  senderEmail: `owner+${randomUUID().slice(0, 8)}@example.com`,
  recipientEmail: 'ada@example.com',
  recipientName: 'Ada Lovelace',
  fileName: 'contract.pdf',
  declinedAt: '2029-12-31T16:00:00.000Z',
  reason: 'Clause 4 is wrong',
});

const scrape = () => scrapeMetrics(mailer.healthPort);
const declinedMails = async (outcome: string) =>
  metricValue(await scrape(), 'esign_mail_messages_total', {
    esign_mail: 'declined',
    esign_outcome: outcome,
  }) ?? 0;

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  prefix = uniqueBusPrefix('mailmetrics');
  database = await createTestDatabase('mailer_metrics_t');
  s3 = await startTestS3();
  smtp = await startSmtpCapture();
  const quiet = createLogger({ service: 'test', level: 'error', write: () => undefined });
  docs = await connectBus({ url: natsUrl, name: 'document-store', prefix, logger: quiet, timeoutMs: 5000 });
  mailer = await startMailerService(
    loadMailerConfig({
      NATS_URL: natsUrl,
      BUS_PREFIX: prefix,
      DATABASE_URL: database.url,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY: s3.accessKey,
      S3_SECRET_KEY: s3.secretKey,
      S3_REGION: s3.region,
      S3_BUCKET: 'esign',
      SMTP_HOST: smtp.host,
      SMTP_PORT: String(smtp.port),
      SMTP_TLS: 'none',
      MAIL_FROM: 'eSign <no-reply@esign.test>',
      PUBLIC_BASE_URL: 'https://sign.example.test',
      MAIL_RETRY_DELAYS_MS: '200',
      MAIL_MAX_DELIVERIES: '2',
      METRICS_EXPORTER: 'prometheus',
    }),
    { logger: quiet },
  );
});

afterAll(async () => {
  await mailer?.stop();
  await docs?.drain();
  await smtp?.stop();
  await s3?.stop();
  await database?.drop();
});

describe('the mailer’s metrics', () => {
  it('counts a sent email with its delivery lag, a redelivered one as duplicate, a refused one as retried', async () => {
    const event = declined();
    await docs.publish(SigningDeclined, event, { msgId: event.eventId });
    await expect.poll(() => declinedMails('sent'), { timeout: 10_000 }).toBe(1);
    const text = await scrape();
    expect(metricValue(text, 'esign_mail_delivery_lag_count', { esign_mail: 'declined' })).toBe(1);
    expect(metricValue(text, 'esign_mail_delivery_lag_sum', { esign_mail: 'declined' })).toBeGreaterThan(0);

    // The same event past JetStream's de-duplication: the delivery log says it was sent.
    await docs.publish(SigningDeclined, event, { msgId: randomUUID() });
    await expect.poll(() => declinedMails('duplicate'), { timeout: 10_000 }).toBe(1);

    smtp.failNext(1);
    const refused = declined();
    await docs.publish(SigningDeclined, refused, { msgId: refused.eventId });
    await expect.poll(() => declinedMails('sent'), { timeout: 10_000 }).toBe(2);
    expect(await declinedMails('retried')).toBe(1);
  });

  it('counts an email that failed on its last delivery as dead-lettered, and an event failing its contract as parked', async () => {
    smtp.failNext(2);
    const event = declined();
    await docs.publish(SigningDeclined, event, { msgId: event.eventId });
    await expect.poll(() => declinedMails('dead_lettered'), { timeout: 10_000 }).toBe(1);

    await docs.jetstream.publish(`${prefix}${SigningRequested.subject}`, encodeJson({ sendId: 'nope' }));
    await expect
      .poll(
        async () =>
          metricValue(await scrape(), 'esign_bus_consumer_parked_total', {
            messaging_consumer_group_name: 'mailer-signing-requested',
            esign_reason: 'contract',
          }),
        { timeout: 10_000 },
      )
      .toBe(1);
  });

  it('reports every consumer’s lag, and serves text promtool accepts', async () => {
    const durables = ['mailer-signing-declined', 'mailer-signing-requested', 'mailer-sign-in-link-requested'];
    const lags = async () => consumerLags(await scrape(), durables);
    // Everything published so far handled or parked: nothing pending, nothing held.
    await expect.poll(lags, { timeout: 10_000 }).toEqual(durables.map(() => [0, 0]));
    expect(await promtoolCheckMetrics(await scrape())).toEqual({ code: 0, output: '' });
  });
});
