import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startHealthServer, type HealthServer } from '../health';
import { METRICS, metricsOf, prometheusNames } from './catalog';
import { OBSERVE_TIMEOUT_MS } from './instruments';
import { startMetrics, type Metrics } from './provider';

let metrics: Metrics | undefined;
let health: HealthServer | undefined;
afterEach(async () => {
  await health?.close();
  await metrics?.shutdown();
  health = metrics = undefined;
});

const scrape = async () => {
  health = await startHealthServer({ port: 0, ready: () => true, metrics });
  const res = await fetch(`http://127.0.0.1:${health.port}/metrics`);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
};

describe('metrics', () => {
  it('serves what the instruments recorded at /metrics, under the names the catalog gives', async () => {
    metrics = await startMetrics({ service: 'gateway', exporter: 'prometheus' });
    metrics.counter('httpRefused').add(3, { 'http.route': '/api/v1/sign', reason: 'size' });
    metrics.histogram('httpRequestDuration').record(0.02, {
      'http.request.method': 'POST',
      'http.route': '/api/v1/sign',
      'http.response.status_class': '2xx',
    });
    const { status, type, text } = await scrape();
    expect(status).toBe(200);
    expect(type).toContain('text/plain');
    expect(text).toMatch(/^esign_http_refused_total\{http_route="\/api\/v1\/sign",reason="size"\} 3/m);
    expect(text).toContain(`${prometheusNames(METRICS.httpRequestDuration)[0]}{`);
    expect(text).toMatch(/^http_server_request_duration_count\{.*http_response_status_class="2xx".*\} 1/m);
    // The process's own figures come with every service.
    for (const entry of metricsOf('gateway').filter((e) => e.services === 'all')) {
      const [name = ''] = prometheusNames(entry);
      expect(text).toContain(`# TYPE ${name.replace(/_bucket$/, '')} `);
    }
  });

  it('answers a scrape without a gauge that does not answer in time, and without one that throws', async () => {
    metrics = await startMetrics({ service: 'document-store', exporter: 'prometheus' });
    metrics.gauge('outboxPending', () => new Promise<void>(() => undefined));
    metrics.gauge('outboxOldestAge', () => Promise.reject(new Error('database down')));
    metrics.gauge('signingRequests', (report) => report(4, { 'esign.state': 'pending' }));
    const started = Date.now();
    const { status, text } = await scrape();
    expect(status).toBe(200);
    expect(Date.now() - started).toBeLessThan(OBSERVE_TIMEOUT_MS + 1000);
    expect(text).toMatch(/^esign_signing_requests\{esign_state="pending"\} 4$/m);
    expect(text).not.toMatch(/^esign_outbox_pending /m);
    expect(text).not.toMatch(/^esign_outbox_oldest_age /m);
  });

  it('answers 404 at /metrics when metrics are off, and records nothing', async () => {
    metrics = await startMetrics({ service: 'key', exporter: 'none' });
    metrics.counter('sweepRuns').add(1);
    const { status, text } = await scrape();
    expect(status).toBe(404);
    expect((JSON.parse(text) as { error: string }).error).toContain('METRICS_EXPORTER=none');
  });

  it('pushes the same instruments over OTLP/HTTP to a collector when METRICS_EXPORTER=otlp', async () => {
    const bodies: { path: string; type: string; body: Buffer }[] = [];
    const collector = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        bodies.push({
          path: req.url ?? '',
          type: req.headers['content-type'] ?? '',
          body: Buffer.concat(chunks),
        });
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
    const saved = { ...process.env };
    process.env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT = `http://127.0.0.1:${(collector.address() as AddressInfo).port}/v1/metrics`;
    process.env.OTEL_EXPORTER_OTLP_METRICS_PROTOCOL = 'http/json';
    process.env.OTEL_METRIC_EXPORT_INTERVAL = '100';
    try {
      metrics = await startMetrics({ service: 'mailer', exporter: 'otlp' });
      metrics.counter('mailMessages').add(2, { 'esign.mail': 'signing-requested', 'esign.outcome': 'sent' });
      await expect
        .poll(() => bodies.some((b) => b.body.includes('esign.mail.messages')), { timeout: 5000 })
        .toBe(true);
      const pushed = bodies.find((b) => b.body.includes('esign.mail.messages'));
      expect(pushed?.path).toBe('/v1/metrics');
      expect(pushed?.body.toString()).toContain('"service.name"');
      // Nothing is served for a scrape: the collector has them.
      const { status } = await scrape();
      expect(status).toBe(404);
    } finally {
      process.env = saved;
      await metrics?.shutdown();
      metrics = undefined;
      await new Promise((resolve) => collector.close(resolve));
    }
  });

  it('names every metric once, with labels in Prometheus form that never name a person or a file', () => {
    const names = Object.values(METRICS).map((entry) => entry.name);
    expect(new Set(names).size).toBe(names.length);
    const forbidden = /account|key_?id|audit|email|ip|address|file|path|url|user|token/i;
    for (const entry of Object.values(METRICS)) {
      for (const label of entry.labels) expect(label, entry.name).not.toMatch(forbidden);
    }
  });
});
