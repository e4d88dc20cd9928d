import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRICS, metricsOf, prometheusNames, type ServiceName } from '@esign/telemetry';
import {
  makePdf,
  promtoolCheckMetrics,
  singleValue,
  startWebhookReceiver,
  type PromResult,
  type WebhookReceiver,
} from '@esign/testing';
import {
  createAccount,
  postForm,
  scrapeAll,
  signForm,
  startMetricsStack,
  type MetricsStack,
} from './harness';

// A real Prometheus scrapes every process of a stack of this file's own (the mailer and the webhook
// service included) once a second. The stack sees exactly: one signing, one signing refused with 400,
// one send (its email) and the webhook delivery of the signing; the queries count them.
let stack: MetricsStack;
let receiver: WebhookReceiver;
let services: ServiceName[];
const signed: { status: number; auditId: string | null }[] = [];
let refusedStatus = 0;
let sendStatus = 0;

const signer = { signerName: 'Ada Lovelace', signerEmail: 'ada@example.com', mode: 'type', typedName: 'Ada' };

const sum = (result: PromResult): number => singleValue(result);
/** Waits until a `sum(…)` reaches `expected` (a scrape or two after the fact), then returns it. */
const sumReaches = async (promql: string, expected: number, timeoutMs = 15_000): Promise<number> =>
  sum(await stack.prometheus.waitFor(promql, (r) => sum(r) >= expected, timeoutMs));

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  stack = await startMetricsStack({
    label: 'metrics_scrape',
    mailer: true,
    serviceEnv: { webhook: { WEBHOOK_ALLOW_NETWORKS: '127.0.0.3/32' } },
  });
  services = Object.keys(stack.test.stack.metricsUrls()) as ServiceName[];
  const { apiKey } = await createAccount(stack.bus);
  const { gatewayUrl } = stack;

  const hook = await fetch(`${gatewayUrl}/api/v1/webhooks`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, eventTypes: ['document.signed'] }),
  });
  expect(hook.status).toBe(201);

  const pdf = await makePdf({ pages: 1 });
  const ok = await postForm(
    gatewayUrl,
    '/api/v1/sign',
    apiKey,
    signForm(signer, { bytes: pdf, name: 'a.pdf' }),
  );
  await ok.arrayBuffer();
  signed.push({ status: ok.status, auditId: ok.headers.get('x-audit-id') });

  // No signer name: refused by the gateway before any work.
  const { signerName: _left, ...withoutName } = signer;
  const refused = await postForm(
    gatewayUrl,
    '/api/v1/sign',
    apiKey,
    signForm(withoutName, { bytes: pdf, name: 'b.pdf' }),
  );
  await refused.arrayBuffer();
  refusedStatus = refused.status;

  const sent = await postForm(
    gatewayUrl,
    '/api/v1/send',
    apiKey,
    signForm(
      {
        recipientEmail: 'grace@example.com',
        recipientName: 'Grace Hopper',
        positions: JSON.stringify([{ x: 10, y: 70, page: 0, width: 30 }]),
      },
      { bytes: pdf, name: 'c.pdf' },
    ),
  );
  await sent.arrayBuffer();
  sendStatus = sent.status;

  await stack.smtp?.waitForMessages(1, 20_000);
  await receiver.waitFor(1, undefined, 20_000);
});

afterAll(async () => {
  await stack?.stop();
  await receiver?.close();
});

describe('metrics scraped by a real Prometheus', () => {
  it('did what the queries count: a signing, a refused signing, a send with its email, a webhook', () => {
    expect(signed[0]?.status).toBe(200);
    expect(refusedStatus).toBe(400);
    expect(sendStatus).toBe(201);
    expect(stack.smtp?.messages.length).toBe(1);
    expect(receiver.received.length).toBe(1);
  });

  it('has every service up, with its process metrics and target_info', async () => {
    expect(services.sort()).toEqual(
      ['document-store', 'gateway', 'key', 'mailer', 'pdf-signer', 'template', 'webhook'].sort(),
    );
    const up = await stack.prometheus.waitFor('up', (r) => r.samples.length === services.length);
    expect(Object.fromEntries(up.samples.map((s) => [s.labels.job, s.value]))).toEqual(
      Object.fromEntries(services.map((service) => [service, 1])),
    );
    const info = await stack.prometheus.waitFor('target_info', (r) => r.samples.length === services.length);
    for (const sample of info.samples) expect(sample.labels.service_name).toBe(sample.labels.job);
    const cpu = await stack.prometheus.query('sum by (job) (process_cpu_time_total)');
    expect(cpu.samples.map((s) => s.labels.job).sort()).toEqual([...services].sort());
    for (const sample of cpu.samples) expect(sample.value, sample.labels.job).toBeGreaterThan(0);
    const memory = await stack.prometheus.query('process_memory_usage');
    expect(memory.samples).toHaveLength(services.length);
    for (const sample of memory.samples) expect(sample.value).toBeGreaterThan(10 * 1024 * 1024);
    expect((await stack.prometheus.query('nodejs_eventloop_delay_p99')).samples).toHaveLength(
      services.length,
    );
  });

  it('exports only metrics of the catalog, each from a service the catalog names, in text promtool accepts', async () => {
    for (const { service, text } of await scrapeAll(stack)) {
      const check = await promtoolCheckMetrics(text);
      expect(check.output, `promtool check metrics on ${service}`).toBe('');
      expect(check.code, service).toBe(0);
      const allowed = new Set(metricsOf(service as ServiceName).flatMap((entry) => prometheusNames(entry)));
      allowed.add('target_info');
      const names = new Set(
        text
          .split('\n')
          .filter((line) => line && !line.startsWith('#'))
          .map((line) => /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? line),
      );
      for (const name of names) expect(allowed, `${service} exports ${name}`).toContain(name);
    }
  });

  // The assertions below need the instruments of the gateway, the signer, the mailer and the webhook
  // service (issue 25): they read what those record.
  it('counts the signing and the refused signing by route template and status class', async () => {
    const route = 'http_route="/api/v1/sign"';
    expect(
      await sumReaches(
        `sum(http_server_request_duration_count{${route},http_response_status_class="2xx"})`,
        1,
      ),
    ).toBe(1);
    expect(
      await sumReaches(
        `sum(http_server_request_duration_count{${route},http_response_status_class="4xx"})`,
        1,
      ),
    ).toBe(1);
    expect(
      await sumReaches(
        `sum(http_server_request_duration_count{http_route="/api/v1/send",http_response_status_class="2xx"})`,
        1,
      ),
    ).toBe(1);
    const p95 = sum(
      await stack.prometheus.query(
        `histogram_quantile(0.95, sum by (le) (http_server_request_duration_bucket{${route}}))`,
      ),
    );
    expect(p95).not.toBeNaN();
    expect(p95).toBeGreaterThan(0);
    // Bytes in: the sum of the request body sizes is at least the PDFs uploaded.
    expect(await sumReaches(`sum(http_server_request_body_size_sum{${route}})`, 1)).toBeGreaterThan(1000);
  });

  it("counts the signer's job by outcome, with a duration and the pages signed", async () => {
    // The signing, and the send's inspection of its PDF, may both run on the workers: at least the one.
    expect(
      await sumReaches('sum(esign_signer_job_duration_count{esign_job="sign",esign_outcome="ok"})', 1),
    ).toBe(1);
    const p95 = sum(
      await stack.prometheus.query(
        'histogram_quantile(0.95, sum by (le) (esign_signer_job_duration_bucket{esign_job="sign"}))',
      ),
    );
    expect(p95).not.toBeNaN();
    expect(await sumReaches('sum(esign_signer_pages_total)', 1)).toBeGreaterThanOrEqual(1);
    expect(await sumReaches('sum(esign_signer_timestamp_duration_count{esign_outcome="ok"})', 1)).toBe(1);
  });

  it("counts the send's email as sent", async () => {
    expect(await sumReaches('sum(esign_mail_messages_total{esign_outcome="sent"})', 1)).toBe(1);
    const lag = sum(
      await stack.prometheus.query('histogram_quantile(0.95, sum by (le) (esign_mail_delivery_lag_bucket))'),
    );
    expect(lag).not.toBeNaN();
  });

  it('counts the webhook delivery as delivered, with its lag', async () => {
    expect(
      await sumReaches(
        'sum(esign_webhook_deliveries_total{esign_event="document.signed",esign_outcome="delivered"})',
        1,
      ),
    ).toBe(1);
    const lag = sum(
      await stack.prometheus.query(
        'histogram_quantile(0.95, sum by (le) (esign_webhook_delivery_lag_bucket))',
      ),
    );
    expect(lag).not.toBeNaN();
  });

  // Last: it leaves the TSA down.
  it('shows failing time-stamp requests once the TSA is down', async () => {
    stack.test.tsa.setMode('down');
    const { apiKey } = await createAccount(stack.bus);
    const res = await postForm(
      stack.gatewayUrl,
      '/api/v1/sign',
      apiKey,
      signForm(signer, { bytes: await makePdf({ pages: 1 }), name: 'd.pdf' }),
    );
    await res.arrayBuffer();
    // Without a TSA the seal cannot carry its timestamp: the signing is refused as unavailable (503,
    // retry), never delivered without one.
    expect(res.status).toBe(503);
    expect(
      await sumReaches(
        `sum(${prometheusNames(METRICS.timestampRequestDuration)[2]}{esign_outcome="error"})`,
        1,
      ),
    ).toBeGreaterThanOrEqual(1);
  });
});
