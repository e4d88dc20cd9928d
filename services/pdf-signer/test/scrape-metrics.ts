import { spawn } from 'node:child_process';
import type { TestSigner } from './start-test-signer';

/** One sample of the Prometheus text format: its name, labels and value. */
export interface Sample {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

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

/** The sum of the samples named `name` whose labels include `labels` (0 when there is none). */
export const valueOf = (samples: Sample[], name: string, labels: Record<string, string> = {}): number =>
  samples
    .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    .reduce((sum, s) => sum + s.value, 0);

/** Whether a sample named `name` with these labels exists at all. */
export const has = (samples: Sample[], name: string, labels: Record<string, string> = {}): boolean =>
  samples.some((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));

/** `promtool check metrics` (Debian's prometheus package) on an exposition: its exit code and output. */
export const promtoolCheck = (text: string): Promise<{ code: number | null; output: string }> =>
  new Promise((resolve, reject) => {
    const child = spawn('promtool', ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });

/** GET /metrics of a test signer's operations port: the text and its samples. */
export const scrapeMetrics = async (signer: TestSigner): Promise<{ text: string; samples: Sample[] }> => {
  const res = await fetch(`http://127.0.0.1:${signer.service.healthPort}/metrics`);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}`);
  const text = await res.text();
  return { text, samples: parseSamples(text) };
};
