import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';
import { isManifest, type Manifest } from './manifest';
import { chartDir } from './paths';
import { runHelm, type HelmResult } from './run-helm';

/** How to render the chart: values as an object (written to a file) and/or values files. */
export interface RenderOptions {
  values?: object;
  valuesFiles?: readonly string[];
  release?: string;
  namespace?: string;
}

/** Run `helm <command> <release> <chart> <values…>` with the options' values in a throwaway file. */
const runWithValues = async (command: readonly string[], options: RenderOptions): Promise<HelmResult> => {
  const dir = await mkdtemp(join(tmpdir(), 'esign-values-'));
  try {
    const args = [
      ...command,
      options.release ?? 'esign',
      chartDir,
      '--namespace',
      options.namespace ?? 'esign',
    ];
    for (const file of options.valuesFiles ?? []) args.push('--values', file);
    if (options.values) {
      const file = join(dir, 'values.yaml');
      // Helm reads YAML 1.1, where an unquoted yes/no/on/off is a boolean: write it that way.
      await writeFile(file, stringify(options.values, { version: '1.1' }));
      args.push('--values', file);
    }
    return await runHelm(args);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

/** Render the chart with `helm template`; the result of helm as it ended, successful or not. */
export const templateChart = (options: RenderOptions = {}): Promise<HelmResult> =>
  runWithValues(['template'], options);

/** Render the chart and parse every object it produces; throws with helm's message when it fails. */
export const renderChart = async (options: RenderOptions = {}): Promise<Manifest[]> => {
  const result = await templateChart(options);
  if (result.code !== 0) throw new Error(`helm template failed (${result.code}):\n${result.stderr}`);
  const manifests: Manifest[] = [];
  for (const document of parseAllDocuments(result.stdout)) {
    if (document.errors.length > 0)
      throw new Error(`rendered YAML does not parse: ${document.errors[0]?.message}`);
    const value: unknown = document.toJS();
    if (value === null || value === undefined) continue;
    if (!isManifest(value))
      throw new Error(`rendered document is not a Kubernetes object:\n${stringify(value)}`);
    manifests.push(value);
  }
  return manifests;
};

/** The NOTES.txt an install would print, from a client-side dry run (no cluster involved). */
export const renderNotes = async (options: RenderOptions = {}): Promise<string> => {
  const result = await runWithValues(['install', '--dry-run=client'], options);
  if (result.code !== 0) throw new Error(`helm install --dry-run failed (${result.code}):\n${result.stderr}`);
  const start = result.stdout.indexOf('NOTES:');
  if (start < 0) throw new Error('the dry run printed no NOTES');
  return result.stdout.slice(start);
};
