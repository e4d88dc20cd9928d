import { spawn } from 'node:child_process';

/** The Prometheus text a process serves at /metrics on its operations port. */
export const scrapeMetrics = async (healthPort: number): Promise<string> => {
  const response = await fetch(`http://127.0.0.1:${healthPort}/metrics`);
  if (!response.ok) throw new Error(`/metrics answered ${response.status}`);
  return response.text();
};

/**
 * The value of one series in Prometheus text: the sample named `name` whose labels include every
 * pair of `labels` (the sum when several do), or undefined when none does.
 */
export const metricValue = (
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined => {
  let total: number | undefined;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (match?.[1] !== name) continue;
    const found = new Map<string, string>();
    for (const pair of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      found.set(pair[1] ?? '', pair[2] ?? '');
    }
    if (Object.entries(labels).every(([key, value]) => found.get(key) === value)) {
      total = (total ?? 0) + Number(match[3]);
    }
  }
  return total;
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
