import { spawn } from 'node:child_process';

/** One sample of the Prometheus text format: its name, labels and value. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The samples of a Prometheus text exposition (comment lines skipped). */
export const parseSamples = (text: string): Sample[] =>
  text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
      if (!match) throw new Error(`not a sample: ${line}`);
      const labels: Record<string, string> = {};
      for (const [, key, value] of (match[2] ?? '').matchAll(
        /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g,
      )) {
        if (key !== undefined && value !== undefined) labels[key] = value;
      }
      return { name: match[1] ?? '', labels, value: Number(match[3]) };
    });

const matches = (sample: Sample, name: string, labels: Record<string, string>) =>
  sample.name === name && Object.entries(labels).every(([k, v]) => sample.labels[k] === v);

/** The sum of the samples named `name` whose labels include `labels` (0 when there is none). */
export const valueOf = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  samples.filter((s) => matches(s, name, labels)).reduce((sum, s) => sum + s.value, 0);

/** Whether a sample named `name` with these labels exists at all. */
export const has = (samples: Sample[], name: string, labels: Record<string, string> = {}): boolean =>
  samples.some((s) => matches(s, name, labels));

/** The Prometheus text a process serves at /metrics on its operations port. */
export const scrapeMetrics = async (healthPort: number): Promise<string> => {
  const response = await fetch(`http://127.0.0.1:${healthPort}/metrics`);
  if (!response.ok) throw new Error(`/metrics answered ${response.status}`);
  return response.text();
};

/**
 * The value of one series in Prometheus text: the sum of the samples named `name` whose labels
 * include every pair of `labels`, or undefined when none does.
 */
export const metricValue = (
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined => {
  const samples = parseSamples(text);
  return has(samples, name, labels) ? valueOf(samples, name, labels) : undefined;
};

/**
 * What `promtool check metrics` (Debian's `prometheus` package) says of a scrape: its output, empty
 * when the text parses and passes its lint. Fails when promtool is not installed.
 */
export const promtoolCheckMetrics = (text: string): Promise<{ code: number; output: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output: output.trim() }));
    child.stdin.end(text);
  });

/**
 * Each durable consumer's lag in Prometheus text: `[pending, ackPending]` per durable, in order
 * (undefined where the consumer reported nothing).
 */
export const consumerLags = (text: string, durables: readonly string[]): (number | undefined)[][] =>
  durables.map((durable) => [
    metricValue(text, 'esign_bus_consumer_pending', { messaging_consumer_group_name: durable }),
    metricValue(text, 'esign_bus_consumer_ack_pending', { messaging_consumer_group_name: durable }),
  ]);
