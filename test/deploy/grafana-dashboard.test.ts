import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { chartDir } from './support/paths';
import { catalogNames, promqlMetricNames, SCRAPE_SERIES } from './support/promql-metric-names';

interface Target {
  expr?: string;
  refId: string;
  datasource?: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  targets?: Target[];
  datasource?: { type: string; uid: string };
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: unknown }[] };
}

// The one dashboard: the chart's ConfigMap and compose's Grafana both load this file.
let text: string;
let dashboard: Dashboard;
const graphs = () => dashboard.panels.filter((p) => p.type !== 'row');

beforeAll(async () => {
  text = await readFile(join(chartDir, 'files/grafana-dashboard.json'), 'utf8');
  dashboard = JSON.parse(text) as Dashboard;
});

describe('files/grafana-dashboard.json', () => {
  it('is a dashboard with a stable uid that picks its Prometheus data source from a variable', () => {
    expect(dashboard.uid).toBe('esign-overview');
    // The title Grafana lists it under.
    expect(dashboard.title).toBe('esign');
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of graphs())
      expect(panel.datasource, panel.title).toEqual({ type: 'prometheus', uid: '${datasource}' });
  });

  it('gives every panel at least one query, and every query a metric of the catalog', () => {
    const known = catalogNames();
    expect(graphs().length).toBeGreaterThan(20);
    for (const panel of graphs()) {
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      for (const target of panel.targets ?? []) {
        const names = promqlMetricNames(target.expr ?? '');
        // A query naming no metric, or a metric no service exports, leaves its panel empty.
        expect(names.length, `${panel.title} ${target.refId}`).toBeGreaterThan(0);
        for (const name of names)
          expect(known.has(name) || SCRAPE_SERIES.has(name), `${panel.title}: ${name}`).toBe(true);
      }
    }
  });

  it('shows every metric of the catalog somewhere', () => {
    const shown = new Set(
      graphs().flatMap((p) => (p.targets ?? []).flatMap((t) => promqlMetricNames(t.expr ?? ''))),
    );
    const entries = new Map<string, string[]>();
    for (const [name, entry] of catalogNames())
      entries.set(entry.name, [...(entries.get(entry.name) ?? []), name]);
    const missing = [...entries]
      .filter(([, names]) => !names.some((n) => shown.has(n)))
      .map(([otel]) => otel);
    expect(missing).toEqual([]);
  });
});
