import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { freePort } from '@esign/dev-servers';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Debian's `prometheus` package puts the server here; tests never download one. */
export const PROMETHEUS_BINARY = '/usr/bin/prometheus';

/** One sample of a PromQL answer: its labels (empty for a scalar) and its value (NaN stays NaN). */
export interface PromSample {
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A PromQL instant query's answer: a vector's samples, or a scalar as one sample without labels. */
export interface PromResult {
  readonly resultType: 'vector' | 'scalar';
  readonly samples: readonly PromSample[];
}

export interface TestPrometheus {
  /** Where its HTTP API answers (`/api/v1/query`, `/-/ready`, the UI). */
  readonly url: string;
  /** An instant query over the HTTP API; throws on a PromQL error (with Prometheus' message). */
  query(promql: string): Promise<PromResult>;
  /**
   * Query until `predicate` holds (a scrape, a rule evaluation, a counter catching up), polling at
   * the scrape interval; throws with the last answer after `timeoutMs`.
   */
  waitFor(
    promql: string,
    predicate: (result: PromResult) => boolean,
    timeoutMs?: number,
  ): Promise<PromResult>;
  /** Stop the server and remove its configuration and storage. */
  stop(): Promise<void>;
}

export interface StartPrometheusOptions {
  /** Scrape targets by job name: full /metrics URLs (`http://127.0.0.1:9464/metrics`). */
  readonly targets: Readonly<Record<string, readonly string[]>>;
  /** Scrape and rule evaluation interval; 1000 makes a test fast. Default 1000. */
  readonly scrapeIntervalMs?: number;
  /** Rule files (alerting or recording rules) to evaluate. */
  readonly ruleFiles?: readonly string[];
  /** The server binary (default Debian's). */
  readonly binary?: string;
  readonly readyTimeoutMs?: number;
}

/** One static target per URL: its host:port, with its scheme and path as Prometheus' reserved labels. */
const staticConfigs = (urls: readonly string[]) =>
  urls.map((raw) => {
    const url = new URL(raw);
    return {
      targets: [url.host],
      labels: { __scheme__: url.protocol.replace(':', ''), __metrics_path__: url.pathname },
    };
  });

/**
 * The configuration file (JSON is YAML): one job per key of `targets`, all scraped every interval.
 * Exported for tests of the harness itself.
 */
export const prometheusConfig = (options: StartPrometheusOptions): string => {
  const interval = `${options.scrapeIntervalMs ?? 1000}ms`;
  return JSON.stringify(
    {
      global: { scrape_interval: interval, evaluation_interval: interval, scrape_timeout: interval },
      rule_files: [...(options.ruleFiles ?? [])],
      scrape_configs: Object.entries(options.targets).map(([job, urls]) => ({
        job_name: job,
        static_configs: staticConfigs(urls),
      })),
    },
    null,
    2,
  );
};

interface QueryAnswer {
  status: 'success' | 'error';
  error?: string;
  data?: { resultType: string; result: unknown };
}

const toResult = (promql: string, answer: QueryAnswer): PromResult => {
  if (answer.status !== 'success' || !answer.data) {
    throw new Error(`PromQL ${promql}: ${answer.error ?? 'no data'}`);
  }
  const { resultType, result } = answer.data;
  if (resultType === 'scalar') {
    const [, value] = result as [number, string];
    return { resultType, samples: [{ labels: {}, value: Number(value) }] };
  }
  if (resultType === 'vector') {
    const samples = (result as { metric: Record<string, string>; value: [number, string] }[]).map(
      ({ metric, value }) => ({ labels: metric, value: Number(value[1]) }),
    );
    return { resultType, samples };
  }
  throw new Error(`PromQL ${promql}: a ${resultType} answer (only instant vectors and scalars are read)`);
};

/**
 * A real Prometheus server (Debian's `/usr/bin/prometheus`, never downloaded) scraping the given
 * targets, on a free loopback port with a configuration and storage of its own in a temporary
 * directory. Resolves once it answers /-/ready.
 */
export const startPrometheus = async (options: StartPrometheusOptions): Promise<TestPrometheus> => {
  const binary = options.binary ?? PROMETHEUS_BINARY;
  if (!existsSync(binary)) {
    throw new Error(
      `Prometheus is not installed (${binary} is missing): install Debian's package (apt-get install prometheus); tests never download it`,
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'esign-prometheus-'));
  const configFile = join(dir, 'prometheus.yml');
  await writeFile(configFile, prometheusConfig(options));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const output: string[] = [];
  const child = spawn(
    binary,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      '--storage.tsdb.retention.time=1h',
      `--web.listen-address=127.0.0.1:${port}`,
      '--log.level=warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk: Buffer) => output.push(chunk.toString('utf8')));
  }
  const exited = once(child, 'exit');

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 30_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await stop();
      throw new Error(`prometheus exited during start-up:\n${output.join('')}`);
    }
    const ready = await fetch(`${url}/-/ready`).then(
      (res) => res.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`prometheus was not ready at ${url} in time:\n${output.join('')}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }

  const query = async (promql: string): Promise<PromResult> => {
    const res = await fetch(`${url}/api/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ query: promql }).toString(),
    });
    return toResult(promql, (await res.json()) as QueryAnswer);
  };

  const pollMs = options.scrapeIntervalMs ?? 1000;
  return {
    url,
    query,
    waitFor: async (promql, predicate, timeoutMs = 20_000) => {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const result = await query(promql);
        if (predicate(result)) return result;
        if (Date.now() > until) {
          throw new Error(
            `PromQL ${promql}: not as expected within ${timeoutMs} ms; last answer ${JSON.stringify(result.samples)}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, Math.min(pollMs, 500)));
      }
    },
    stop,
  };
};

/** The value of a one-sample answer (`sum(…)`, a scalar); NaN when the answer is empty. */
export const singleValue = (result: PromResult): number => {
  if (result.samples.length > 1) {
    throw new Error(`expected one sample, got ${result.samples.length}: ${JSON.stringify(result.samples)}`);
  }
  return result.samples[0]?.value ?? Number.NaN;
};
