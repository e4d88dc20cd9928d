import { METRICS, prometheusNames, type MetricSpec } from '@esign/telemetry';

// Words of PromQL that are not metric names: aggregation modifiers, set and vector-matching operators.
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'atan2',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression selects. Removes what cannot be a metric name (strings, label
 * matchers, range and subquery brackets, grouping label lists, Grafana variables, numbers) and keeps
 * the identifiers that are not functions (followed by `(`) or keywords. Enough for the expressions of
 * the chart's alerts and dashboard; not a PromQL parser.
 */
export const promqlMetricNames = (expr: string): string[] => {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\w+/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[a-zA-Z_:][a-zA-Z0-9_:]*/g)) {
    const word = match[0];
    const after = stripped.slice((match.index ?? 0) + word.length).trimStart();
    if (after.startsWith('(') || KEYWORDS.has(word.toLowerCase())) continue;
    // The exponent of a number such as 2.5e+06.
    if (/[0-9.]$/.test(stripped.slice(0, match.index ?? 0))) continue;
    names.add(word);
  }
  return [...names];
};

/** Every name Prometheus shows for the catalog's metrics, with the entry it comes from. */
export const catalogNames = (): Map<string, MetricSpec> =>
  new Map(
    Object.values(METRICS).flatMap((entry: MetricSpec) =>
      prometheusNames(entry).map((name) => [name, entry] as const),
    ),
  );

/** Series every scrape target has without exporting them: Prometheus adds them. */
export const SCRAPE_SERIES = new Set(['up', 'scrape_duration_seconds', 'scrape_samples_scraped']);
