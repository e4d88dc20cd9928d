import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { METRICS, prometheusLabel, prometheusNames } from '@esign/telemetry';
import { METRICS_END, METRICS_START, OPERATIONS_DOC, renderMetricsTables, renderOperations } from './metrics';

describe('docs/operations.md', () => {
  it('has the metrics tables the catalog makes (run `pnpm docs:metrics` after changing it)', async () => {
    const committed = await readFile(OPERATIONS_DOC, 'utf8');
    expect(committed).toBe(await renderOperations(committed));
  });

  it('lists every metric of the catalog under its Prometheus names, with its labels', () => {
    const tables = renderMetricsTables();
    for (const entry of Object.values(METRICS)) {
      for (const name of prometheusNames(entry)) expect(tables).toContain(`\`${name}\``);
      const line = tables.split('\n').find((l) => l.includes(`\`${prometheusNames(entry)[0]}\``)) ?? '';
      for (const label of entry.labels) expect(line).toContain(`\`${prometheusLabel(label)}\``);
    }
  });

  it('keeps what is outside the markers and refuses a file without them', async () => {
    const doc = `# Ops\n\nintro\n\n${METRICS_START}\nold\n${METRICS_END}\n\n## Alerts\n\nkept\n`;
    const rendered = await renderOperations(doc);
    expect(rendered).toMatch(/^# Ops\n\nintro\n/);
    expect(rendered).not.toContain('\nold\n');
    expect(rendered).toMatch(/## Alerts\n\nkept\n$/);
    await expect(renderOperations('# Ops\n')).rejects.toThrow(/metrics:start/);
  });
});
