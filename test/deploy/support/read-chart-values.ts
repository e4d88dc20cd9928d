import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import { chartDir } from './paths';

/** The part of a component's values the tests look at. */
export interface ComponentValues {
  enabled: boolean;
  program: string;
  replicas: number;
  needs: string[];
  ports: Record<string, { containerPort: number; env?: string }>;
  preStopSleepSeconds?: number;
  autoscaling?: {
    enabled: boolean;
    minReplicas: number;
    maxReplicas: number;
    targetCPUUtilizationPercentage: number;
  };
}

/** The chart's default values.yaml (or another values file of the chart). */
export const readChartValues = async (
  file = 'values.yaml',
): Promise<{ components: Record<string, ComponentValues> } & Record<string, unknown>> =>
  parse(await readFile(join(chartDir, file), 'utf8')) as { components: Record<string, ComponentValues> };
