import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ServiceName } from '@esign/stack';

/** One file_sd group: a service's processes, under the job name the alerts select (esign-<service>). */
export interface ScrapeTargetGroup {
  targets: string[];
  labels: { job: string };
}

/** Where the configuration went and how to run Prometheus on it. */
export interface ScrapeConfigFiles {
  configFile: string;
  targetsFile: string;
  command: string;
}

/** `host:port` of each process's /metrics, grouped by service. */
export const scrapeTargets = (metricsUrls: Partial<Record<ServiceName, string[]>>): ScrapeTargetGroup[] =>
  Object.entries(metricsUrls)
    .filter(([, urls]) => urls.length > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([service, urls]) => ({
      targets: urls.map((url) => new URL(url).host),
      labels: { job: `esign-${service}` },
    }));

// Written beside the target and renamed: Prometheus watches the file and never reads half of it.
const writeAtomically = async (file: string, text: string) => {
  await writeFile(`${file}.tmp`, text);
  await rename(`${file}.tmp`, file);
};

/**
 * A Prometheus configuration for the processes of `pnpm dev`, in `<directory>`: `targets.json`
 * (file_sd, one group per service) and `prometheus.yml` that reads it and evaluates the chart's
 * alerts (`rulesFile`). Prometheus re-reads the targets when they change, so a restarted service
 * (new port) is followed by writing them again (`updateScrapeTargets`).
 */
export const writeScrapeConfig = async (options: {
  directory: string;
  rulesFile: string;
  metricsUrls: Partial<Record<ServiceName, string[]>>;
}): Promise<ScrapeConfigFiles> => {
  const { directory, rulesFile } = options;
  await mkdir(directory, { recursive: true });
  const targetsFile = join(directory, 'targets.json');
  const configFile = join(directory, 'prometheus.yml');
  await updateScrapeTargets(targetsFile, options.metricsUrls);
  // JSON is YAML: no YAML library needed for a file this small.
  const config = {
    global: { scrape_interval: '5s', evaluation_interval: '5s' },
    rule_files: [rulesFile],
    scrape_configs: [
      { job_name: 'esign', file_sd_configs: [{ files: [targetsFile], refresh_interval: '5s' }] },
    ],
  };
  await writeAtomically(
    configFile,
    `# pnpm dev's processes (written at start-up; targets.json follows restarts).\n${JSON.stringify(config, null, 2)}\n`,
  );
  return {
    configFile,
    targetsFile,
    command: `prometheus --config.file=${configFile} --storage.tsdb.path=${join(directory, 'data')}`,
  };
};

/** Write the targets when they differ from `previous`; returns what the file now holds. */
export const updateScrapeTargets = async (
  targetsFile: string,
  metricsUrls: Partial<Record<ServiceName, string[]>>,
  previous?: string,
): Promise<string> => {
  const text = `${JSON.stringify(scrapeTargets(metricsUrls), null, 2)}\n`;
  if (text !== previous) await writeAtomically(targetsFile, text);
  return text;
};
