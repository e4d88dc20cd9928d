import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prometheusConfig, singleValue, startPrometheus, type TestPrometheus } from './prometheus';

// A real Prometheus (Debian's package) scraping a real HTTP server of this process.
let target: Server;
let targetUrl: string;
let prometheus: TestPrometheus | undefined;
let served = 0;

beforeAll(async () => {
  target = createServer((req, res) => {
    if (req.url !== '/custom/metrics') {
      res.writeHead(404).end();
      return;
    }
    served += 1;
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' });
    res.end(
      `# TYPE demo_things_total counter\ndemo_things_total{kind="a"} 7\ndemo_things_total{kind="b"} 2\n`,
    );
  });
  await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
  targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}/custom/metrics`;
});

afterAll(async () => {
  await prometheus?.stop();
  await new Promise((resolve) => target.close(resolve));
});

describe('startPrometheus', () => {
  it('scrapes the targets at their path and answers PromQL with vectors and scalars', async () => {
    prometheus = await startPrometheus({ targets: { demo: [targetUrl] }, scrapeIntervalMs: 500 });
    const up = await prometheus.waitFor('up{job="demo"}', (r) => r.samples.length === 1);
    expect(up.samples[0]?.value).toBe(1);
    expect(served).toBeGreaterThan(0);
    const total = await prometheus.waitFor('sum(demo_things_total)', (r) => singleValue(r) === 9);
    expect(total.resultType).toBe('vector');
    const byKind = await prometheus.query('demo_things_total');
    expect(byKind.samples.map((s) => s.labels.kind).sort()).toEqual(['a', 'b']);
    expect(singleValue(await prometheus.query('scalar(sum(demo_things_total))'))).toBe(9);
    await expect(prometheus.query('sum(')).rejects.toThrow(/PromQL sum\(/);
  });

  it('fails clearly when the binary is missing instead of downloading one', async () => {
    await expect(startPrometheus({ targets: {}, binary: '/nonexistent/prometheus' })).rejects.toThrow(
      /apt-get install prometheus/,
    );
  });

  it('writes one job per target group with the rule files given', () => {
    const config = JSON.parse(
      prometheusConfig({
        targets: { gateway: ['http://127.0.0.1:9000/metrics'], signer: ['http://127.0.0.1:9001/m'] },
        scrapeIntervalMs: 1000,
        ruleFiles: ['/tmp/rules.yaml'],
      }),
    ) as { rule_files: string[]; scrape_configs: { job_name: string; static_configs: unknown[] }[] };
    expect(config.rule_files).toEqual(['/tmp/rules.yaml']);
    expect(config.scrape_configs.map((c) => c.job_name)).toEqual(['gateway', 'signer']);
    expect(config.scrape_configs[1]?.static_configs).toEqual([
      { targets: ['127.0.0.1:9001'], labels: { __scheme__: 'http', __metrics_path__: '/m' } },
    ]);
  });
});
