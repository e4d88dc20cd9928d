import { afterEach, describe, expect, it } from 'vitest';
import { startHealthServer, type HealthServer } from '../health';
import { METRICS, metricsOf, prometheusNames } from './catalog';
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

  it('answers 404 at /metrics when metrics are off, and records nothing', async () => {
    metrics = await startMetrics({ service: 'key', exporter: 'none' });
    metrics.counter('sweepRuns').add(1);
    const { status, text } = await scrape();
    expect(status).toBe(404);
    expect((JSON.parse(text) as { error: string }).error).toContain('METRICS_EXPORTER=none');
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
