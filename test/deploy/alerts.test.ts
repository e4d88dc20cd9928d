import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chartDir, repoRoot } from './support/paths';
import { catalogNames, promqlMetricNames, SCRAPE_SERIES } from './support/promql-metric-names';
import { runCommand } from './support/run-command';

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface RuleFile {
  groups: { name: string; rules: Rule[] }[];
}

// The one rule file: the chart's PrometheusRule and compose's Prometheus both read it.
const alertsFile = join(chartDir, 'files/alerts.yaml');
const unitTests = join(repoRoot, 'test/deploy/alerts-test.yaml');

let rules: Rule[];
let work: string;

beforeAll(async () => {
  rules = (parse(await readFile(alertsFile, 'utf8')) as RuleFile).groups.flatMap((g) => g.rules);
  work = await mkdtemp(join(tmpdir(), 'esign-alerts-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const promtool = (args: string[]) => runCommand('promtool', args, { cwd: repoRoot });

describe('files/alerts.yaml', () => {
  it('passes promtool check rules', async () => {
    const result = await promtool(['check', 'rules', alertsFile]);
    expect(result.stdout + result.stderr).toContain(`SUCCESS: ${rules.length} rules found`);
    expect(result.code).toBe(0);
  });

  it('has the alerts the issue asks for, each with a severity, a summary and its runbook', async () => {
    const operations = await readFile(join(repoRoot, 'docs/operations.md'), 'utf8');
    const alertsSection = operations.slice(operations.indexOf('\n## Alerts\n'));
    expect(alertsSection.length).toBeLessThan(operations.length);
    expect(rules.map((r) => r.alert)).toEqual(
      expect.arrayContaining([
        'SignerSaturated',
        'High5xxRatio',
        'OutboxStuck',
        'WebhookDeadLetters',
        'TsaFailing',
        'OcspFailing',
        'CertificateExpiringSoon',
        'ServiceDown',
        'MailDeadLetters',
        'MessagesParked',
        'ConsumerLagGrowing',
      ]),
    );
    for (const rule of rules) {
      expect(['critical', 'warning'], rule.alert).toContain(rule.labels?.severity);
      // A sentence a person paged at night can read: words, not an empty or placeholder string.
      expect(rule.annotations?.summary, rule.alert).toMatch(/^\S+( \S+){3,}/);
      // The anchor GitHub gives the heading `### <Alert>`.
      expect(rule.annotations?.runbook_url, rule.alert).toBe(
        `docs/operations.md#${rule.alert.toLowerCase()}`,
      );
      expect(alertsSection, rule.alert).toMatch(new RegExp(`^### ${rule.alert}$`, 'm'));
    }
  });

  it('selects only metrics of the catalog (libs/telemetry/src/metrics/catalog.ts)', () => {
    const known = catalogNames();
    for (const rule of rules) {
      const names = promqlMetricNames(rule.expr);
      expect(names.length, rule.alert).toBeGreaterThan(0);
      for (const name of names)
        expect(known.has(name) || SCRAPE_SERIES.has(name), `${rule.alert}: ${name}`).toBe(true);
    }
  });
});

describe('promtool test rules (test/deploy/alerts-test.yaml)', () => {
  it('fires TsaFailing, SignerSaturated, CertificateExpiringSoon, OutboxStuck, ServiceDown and High5xxRatio on recorded series', async () => {
    const tested = (
      parse(await readFile(unitTests, 'utf8')) as {
        tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
      }
    ).tests.flatMap((t) => t.alert_rule_test ?? []);
    const firing = new Set(tested.filter((t) => t.exp_alerts.length > 0).map((t) => t.alertname));
    expect([...firing].sort()).toEqual([
      'CertificateExpiringSoon',
      'High5xxRatio',
      'OutboxStuck',
      'ServiceDown',
      'SignerSaturated',
      'TsaFailing',
    ]);
    const result = await promtool(['test', 'rules', unitTests]);
    expect(result.stdout + result.stderr).toContain('SUCCESS');
    expect(result.code).toBe(0);
  });

  it('fails when TsaFailing could not fire within its window (the test can tell)', async () => {
    // The same tests against a copy whose TsaFailing waits 30 minutes instead of 5.
    const file = parse(await readFile(alertsFile, 'utf8')) as RuleFile;
    for (const rule of file.groups.flatMap((g) => g.rules)) if (rule.alert === 'TsaFailing') rule.for = '30m';
    await writeFile(join(work, 'alerts.yaml'), stringify(file));
    const tests = (await readFile(unitTests, 'utf8')).replace(
      '../../helm/esign/files/alerts.yaml',
      'alerts.yaml',
    );
    await writeFile(join(work, 'alerts-test.yaml'), tests);
    const result = await runCommand('promtool', ['test', 'rules', 'alerts-test.yaml'], { cwd: work });
    expect(result.code).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('alertname: TsaFailing');
  });
});
