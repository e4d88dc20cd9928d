import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IContainer } from 'kubernetes-models/v1';
import { parse, stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findManifest, manifestsOf } from './support/find-manifest';
import { kebabCase } from './support/kebab-case';
import type { Manifest } from './support/manifest';
import { chartDir } from './support/paths';
import { podTemplateOf } from './support/pod-template-of';
import { readChartValues, type ComponentValues } from './support/read-chart-values';
import { renderChart, templateChart } from './support/render-chart';
import { runCommand } from './support/run-command';
import { validateManifest } from './support/validate-manifest';

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}
interface RuleFile {
  groups: { name: string; rules: Rule[] }[];
}

const everything = {
  metrics: {
    serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus-stack' } },
    prometheusRule: { enabled: true },
    grafanaDashboard: { enabled: true },
  },
};

let components: [string, ComponentValues][];
let sourceRules: RuleFile;
let work: string;

beforeAll(async () => {
  components = Object.entries((await readChartValues()).components).filter(([, c]) => c.enabled);
  sourceRules = parse(await readFile(join(chartDir, 'files/alerts.yaml'), 'utf8')) as RuleFile;
  work = await mkdtemp(join(tmpdir(), 'esign-rules-'));
});
afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

const containerOf = (manifests: Manifest[], key: string): IContainer => {
  const deployment = findManifest(manifests, 'Deployment', `esign-${kebabCase(key)}`);
  const container = podTemplateOf(deployment)?.spec?.containers[0];
  if (!container) throw new Error(`${key} has no container`);
  return container;
};
const podAnnotations = (manifests: Manifest[], key: string) =>
  podTemplateOf(findManifest(manifests, 'Deployment', `esign-${kebabCase(key)}`))?.metadata?.annotations ??
  {};
const commonEnv = (manifests: Manifest[]) =>
  findManifest(manifests, 'ConfigMap', 'esign-common').data as Record<string, string>;
const rulesOf = (manifests: Manifest[]): RuleFile => {
  const [rule] = manifestsOf(manifests, 'PrometheusRule');
  if (!rule) throw new Error('no PrometheusRule rendered');
  return rule.spec as RuleFile;
};

/** `promtool check rules` on a rule file; its output when it fails. */
const checkRules = async (rules: RuleFile, name: string) => {
  const file = join(work, `${name}.yaml`);
  await writeFile(file, stringify(rules));
  return runCommand('promtool', ['check', 'rules', file], { cwd: work });
};

describe('metrics with default values', () => {
  it('serves metrics for Prometheus and annotates every pod with its operations port', async () => {
    const manifests = await renderChart();
    expect(commonEnv(manifests).METRICS_EXPORTER).toBe('prometheus');
    for (const [key, values] of components) {
      const health = values.ports.health;
      expect(health, `${key} has an operations port`).toBeDefined();
      expect(podAnnotations(manifests, key), key).toMatchObject({
        'prometheus.io/scrape': 'true',
        'prometheus.io/port': String(health?.containerPort),
        'prometheus.io/path': '/metrics',
      });
      expect(containerOf(manifests, key).ports, key).toContainEqual({
        name: 'health',
        containerPort: health?.containerPort,
        protocol: 'TCP',
      });
    }
    for (const kind of ['ServiceMonitor', 'PrometheusRule', 'ScaledObject'])
      expect(manifestsOf(manifests, kind), kind).toEqual([]);
  });

  it('gives the gateway an operations port (HEALTH_PORT 9090) that its public Service leaves out', async () => {
    const manifests = await renderChart();
    const gateway = containerOf(manifests, 'gateway');
    expect(gateway.env).toContainEqual({ name: 'HEALTH_PORT', value: '9090' });
    expect(gateway.env).toContainEqual({ name: 'PORT', value: '8080' });
    // Its probes stay on the API port: they test what clients reach.
    expect(gateway.readinessProbe?.httpGet?.port).toBe('http');
    const service = findManifest(manifests, 'Service', 'esign-gateway');
    expect((service.spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toEqual(['http']);
  });

  it('records nothing and annotates nothing with metrics.enabled=false', async () => {
    const manifests = await renderChart({ values: { metrics: { enabled: false } } });
    expect(commonEnv(manifests).METRICS_EXPORTER).toBe('none');
    for (const [key] of components)
      expect(
        Object.keys(podAnnotations(manifests, key)).filter((a) => a.startsWith('prometheus.io/')),
      ).toEqual([]);
  });

  it('pushes over OTLP with metrics.exporter=otlp, and refuses that without a collector', async () => {
    const manifests = await renderChart({
      values: { metrics: { exporter: 'otlp' }, otel: { endpoint: 'http://collector:4318' } },
    });
    expect(commonEnv(manifests).METRICS_EXPORTER).toBe('otlp');
    expect(podAnnotations(manifests, 'key')['prometheus.io/scrape']).toBeUndefined();
    const refused = await templateChart({ values: { metrics: { exporter: 'otlp' } } });
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('otel.endpoint');
  });
});

describe('metrics.serviceMonitor', () => {
  it('renders a ServiceMonitor and a headless metrics Service per component, and no pod annotations', async () => {
    const manifests = await renderChart({ values: everything });
    for (const manifest of manifests) validateManifest(manifest);
    expect(manifestsOf(manifests, 'ServiceMonitor').length).toBe(components.length);
    for (const [key, values] of components) {
      const name = `esign-${kebabCase(key)}`;
      const service = findManifest(manifests, 'Service', `${name}-metrics`);
      const serviceSpec = service.spec as {
        clusterIP: string;
        selector: Record<string, string>;
        ports: { name: string; port: number; targetPort: string }[];
      };
      expect(serviceSpec.clusterIP).toBe('None');
      expect(serviceSpec.ports).toEqual([
        { name: 'health', port: values.ports.health?.containerPort, targetPort: 'health', protocol: 'TCP' },
      ]);
      // The Service selects this component's pods.
      const podLabels = podTemplateOf(findManifest(manifests, 'Deployment', name))?.metadata?.labels ?? {};
      expect(podLabels).toMatchObject(serviceSpec.selector);

      const monitor = findManifest(manifests, 'ServiceMonitor', name);
      const spec = monitor.spec as {
        selector: { matchLabels: Record<string, string> };
        namespaceSelector: { matchNames: string[] };
        endpoints: {
          port: string;
          path: string;
          relabelings: { targetLabel: string; replacement: string }[];
        }[];
      };
      expect(monitor.metadata.labels?.release).toBe('kube-prometheus-stack');
      expect(spec.namespaceSelector.matchNames).toEqual(['esign']);
      // It selects the metrics Service only, not the gateway's public one.
      expect(service.metadata.labels).toMatchObject(spec.selector.matchLabels);
      const others = manifestsOf(manifests, 'Service').filter((s) => s !== service);
      for (const other of others)
        expect(other.metadata.labels ?? {}, other.metadata.name).not.toMatchObject(spec.selector.matchLabels);
      expect(spec.endpoints).toEqual([
        expect.objectContaining({
          port: 'health',
          path: '/metrics',
          // The job the alerts select by.
          relabelings: [{ action: 'replace', targetLabel: 'job', replacement: `esign-${values.program}` }],
        }),
      ]);
      expect(podAnnotations(manifests, key)['prometheus.io/scrape']).toBeUndefined();
    }
  });

  it('is refused without metrics or with the OTLP exporter', async () => {
    const off = await templateChart({
      values: { metrics: { enabled: false, serviceMonitor: { enabled: true } } },
    });
    expect(off.code).not.toBe(0);
    expect(off.stderr).toContain('metrics.enabled');
    const otlp = await templateChart({
      values: {
        metrics: { exporter: 'otlp', serviceMonitor: { enabled: true } },
        otel: { endpoint: 'http://collector:4318' },
      },
    });
    expect(otlp.code).not.toBe(0);
    expect(otlp.stderr).toContain('metrics.exporter=prometheus');
  });
});

describe('metrics.prometheusRule', () => {
  it('renders the alerts of files/alerts.yaml unchanged, and promtool accepts them', async () => {
    const rules = rulesOf(await renderChart({ values: everything }));
    expect(rules).toEqual(sourceRules);
    const check = await checkRules(rules, 'default');
    expect(check.stdout + check.stderr).toContain(
      `SUCCESS: ${sourceRules.groups.flatMap((g) => g.rules).length} rules found`,
    );
    expect(check.code).toBe(0);
  });

  it('applies per-alert overrides: threshold, for, severity, enabled, and the runbook base URL', async () => {
    const rules = rulesOf(
      await renderChart({
        values: {
          metrics: {
            prometheusRule: {
              enabled: true,
              runbookBaseUrl: 'https://git.example.com/esign/blob/main/',
              alerts: {
                SignerSaturated: { threshold: 2.5, for: '10m', severity: 'critical' },
                CertificateExpiringSoon: { threshold: 5184000 },
                MailDeadLetters: { enabled: false },
              },
            },
          },
        },
      }),
    );
    const byName = new Map(rules.groups.flatMap((g) => g.rules).map((r) => [r.alert, r]));
    const source = new Map(sourceRules.groups.flatMap((g) => g.rules).map((r) => [r.alert, r]));
    expect(byName.get('SignerSaturated')?.expr).toBe(
      source.get('SignerSaturated')?.expr.replace(/> 1$/, '> 2.5'),
    );
    expect(byName.get('SignerSaturated')?.for).toBe('10m');
    expect(byName.get('SignerSaturated')?.labels.severity).toBe('critical');
    expect(byName.get('CertificateExpiringSoon')?.expr).toMatch(/< 5\.184e\+06$/);
    expect(byName.has('MailDeadLetters')).toBe(false);
    expect(byName.get('TsaFailing')?.annotations.runbook_url).toBe(
      'https://git.example.com/esign/blob/main/docs/operations.md#tsafailing',
    );
    const check = await checkRules(rules, 'overridden');
    expect(check.code, check.stdout + check.stderr).toBe(0);
  });

  it('refuses an override of an alert that does not exist', async () => {
    const result = await templateChart({
      values: {
        metrics: { prometheusRule: { enabled: true, alerts: { SignerSaturatd: { threshold: 2 } } } },
      },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('metrics.prometheusRule.alerts.SignerSaturatd: no such alert');
  });
});

describe('metrics.grafanaDashboard', () => {
  it("ships files/grafana-dashboard.json in a ConfigMap with the label Grafana's sidecar watches", async () => {
    const dashboard = await readFile(join(chartDir, 'files/grafana-dashboard.json'), 'utf8');
    const manifests = await renderChart({ values: everything });
    const configMap = findManifest(manifests, 'ConfigMap', 'esign-grafana-dashboard');
    expect(configMap.metadata.labels?.grafana_dashboard).toBe('1');
    const data = configMap.data as Record<string, string>;
    expect(JSON.parse(data['esign.json'] ?? '')).toEqual(JSON.parse(dashboard));

    const custom = await renderChart({
      values: {
        metrics: {
          grafanaDashboard: {
            enabled: true,
            labelKey: 'grafana.example.com/dashboard',
            labelValue: 'esign',
            annotations: { grafana_folder: 'esign' },
          },
        },
      },
    });
    const customMap = findManifest(custom, 'ConfigMap', 'esign-grafana-dashboard');
    validateManifest(customMap);
    expect(customMap.metadata.labels?.['grafana.example.com/dashboard']).toBe('esign');
    expect(customMap.metadata.labels?.grafana_dashboard).toBeUndefined();
    expect(customMap.metadata.annotations).toEqual({ grafana_folder: 'esign' });
  });
});

describe('pdf-signer autoscaling on queue wait (KEDA)', () => {
  const keda = {
    components: {
      pdfSigner: {
        autoscaling: { keda: { enabled: true, serverAddress: 'http://prometheus-operated.monitoring:9090' } },
      },
    },
  };

  it('keeps the CPU HorizontalPodAutoscaler by default', async () => {
    const manifests = await renderChart();
    findManifest(manifests, 'HorizontalPodAutoscaler', 'esign-pdf-signer');
    expect(manifestsOf(manifests, 'ScaledObject')).toEqual([]);
  });

  it('replaces the HPA with a ScaledObject that follows the p95 queue wait and CPU', async () => {
    const manifests = await renderChart({ values: keda, namespace: 'signing' });
    for (const manifest of manifests) validateManifest(manifest);
    expect(manifestsOf(manifests, 'HorizontalPodAutoscaler', 'pdf-signer')).toEqual([]);
    const scaled = findManifest(manifests, 'ScaledObject', 'esign-pdf-signer');
    const spec = scaled.spec as {
      scaleTargetRef: { name: string };
      minReplicaCount: number;
      maxReplicaCount: number;
      triggers: { type: string; metricType: string; metadata: Record<string, string> }[];
    };
    expect(spec.scaleTargetRef.name).toBe('esign-pdf-signer');
    expect([spec.minReplicaCount, spec.maxReplicaCount]).toEqual([2, 10]);
    const [queueWait, cpu] = spec.triggers;
    expect(queueWait).toMatchObject({
      type: 'prometheus',
      metricType: 'Value',
      metadata: { serverAddress: 'http://prometheus-operated.monitoring:9090', threshold: '0.25' },
    });
    expect(queueWait?.metadata.query).toContain('esign_signer_queue_wait_bucket{namespace="signing"}');
    expect(cpu).toEqual({ type: 'cpu', metricType: 'Utilization', metadata: { value: '70' } });
    // The Deployment leaves its replica count to the autoscaler.
    expect(
      (findManifest(manifests, 'Deployment', 'esign-pdf-signer').spec as { replicas?: number }).replicas,
    ).toBeUndefined();
    // The query is valid PromQL: promtool parses it as a recording rule.
    const check = await checkRules(
      {
        groups: [
          {
            name: 'keda',
            rules: [
              {
                record: 'esign:signer_queue_wait:p95',
                expr: queueWait?.metadata.query ?? '',
              } as unknown as Rule,
            ],
          },
        ],
      },
      'keda',
    );
    expect(check.code, check.stdout + check.stderr).toBe(0);
  });

  it('refuses KEDA without a Prometheus address', async () => {
    const result = await templateChart({
      values: { components: { pdfSigner: { autoscaling: { keda: { enabled: true } } } } },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('components.pdfSigner.autoscaling.keda.serverAddress');
  });
});
