import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { IContainer, IPodTemplateSpec } from 'kubernetes-models/v1';
import { beforeAll, describe, expect, it } from 'vitest';
import { findManifest, manifestsOf } from './support/find-manifest';
import { kebabCase } from './support/kebab-case';
import type { Manifest } from './support/manifest';
import { podTemplateOf } from './support/pod-template-of';
import { readChartValues, type ComponentValues } from './support/read-chart-values';
import { renderChart } from './support/render-chart';
import { repoRoot } from './support/paths';
import { validateManifest } from './support/validate-manifest';

// The chart with its default values: every component but the mailer, in-cluster NATS/Postgres/MinIO.
let manifests: Manifest[];
let components: [string, ComponentValues][];

beforeAll(async () => {
  manifests = await renderChart();
  components = Object.entries((await readChartValues()).components);
});

const enabled = () => components.filter(([, c]) => c.enabled);
const deploymentOf = (key: string) => findManifest(manifests, 'Deployment', `esign-${kebabCase(key)}`);
const podOf = (manifest: Manifest): IPodTemplateSpec => {
  const pod = podTemplateOf(manifest);
  if (!pod?.spec) throw new Error(`${manifest.kind} ${manifest.metadata.name} has no pod template`);
  return pod;
};
const containerOf = (manifest: Manifest): IContainer => {
  const container = podOf(manifest).spec?.containers[0];
  if (!container) throw new Error(`${manifest.metadata.name} has no container`);
  return container;
};

describe('the chart with default values', () => {
  it('renders only objects that pass the Kubernetes schema of their kind', () => {
    expect(manifests.length).toBeGreaterThan(10);
    for (const manifest of manifests) validateManifest(manifest);
  });

  it('enables every service but the mailer, which needs an SMTP relay to be named', () => {
    expect(enabled().map(([key]) => key)).toEqual(
      expect.arrayContaining(['gateway', 'key', 'documentStore', 'pdfSigner', 'template', 'webhook']),
    );
    expect(components.find(([key]) => key === 'mailer')?.[1].enabled).toBe(false);
    expect(manifestsOf(manifests, 'Deployment', 'mailer')).toEqual([]);
  });

  it('gives every enabled component a Deployment running its own program from the one image', () => {
    const images = new Set<string>();
    for (const [key, values] of enabled()) {
      const container = containerOf(deploymentOf(key));
      expect(container.args).toEqual([values.program]);
      expect(existsSync(join(repoRoot, 'services', values.program, 'package.json'))).toBe(true);
      images.add(container.image ?? '');
    }
    expect([...images]).toEqual(['esign:0.1.0']);
  });

  it('probes every component for start-up, liveness (/healthz) and readiness (/readyz) on a declared port', () => {
    for (const [key] of enabled()) {
      const container = containerOf(deploymentOf(key));
      const ports = (container.ports ?? []).map((p) => p.name);
      for (const [probe, path] of [
        [container.startupProbe, '/healthz'],
        [container.livenessProbe, '/healthz'],
        [container.readinessProbe, '/readyz'],
      ] as const) {
        expect(probe?.httpGet?.path, `${key}`).toBe(path);
        expect(ports, `${key}`).toContain(probe?.httpGet?.port);
      }
    }
  });

  it('tells each service the port it is probed on', () => {
    for (const [key, values] of enabled()) {
      const container = containerOf(deploymentOf(key));
      for (const port of Object.values(values.ports)) {
        expect(container.env, key).toContainEqual({ name: port.env, value: String(port.containerPort) });
      }
    }
    expect(containerOf(deploymentOf('gateway')).env).toContainEqual({ name: 'PORT', value: '8080' });
    expect(containerOf(deploymentOf('pdfSigner')).env).toContainEqual({ name: 'HEALTH_PORT', value: '9090' });
  });

  it('sets CPU and memory requests and a memory limit on every component', () => {
    for (const [key] of enabled()) {
      const { resources } = containerOf(deploymentOf(key));
      expect(String(resources?.requests?.cpu), key).toMatch(/^[0-9.]+(m|Mi|Gi)?$/);
      expect(String(resources?.requests?.memory), key).toMatch(/^[0-9.]+(m|Mi|Gi)?$/);
      expect(String(resources?.limits?.memory), key).toMatch(/^[0-9.]+(m|Mi|Gi)?$/);
    }
  });

  it('runs every pod it creates non-root, read-only, without privileges and with the default seccomp profile', () => {
    const workloads = manifests.filter((m) => podTemplateOf(m));
    expect(workloads.length).toBeGreaterThanOrEqual(enabled().length + 3);
    for (const workload of workloads) {
      const pod = podOf(workload);
      const name = `${workload.kind} ${workload.metadata.name}`;
      expect(pod.spec?.securityContext?.runAsNonRoot, name).toBe(true);
      expect(pod.spec?.securityContext?.seccompProfile?.type, name).toBe('RuntimeDefault');
      expect(pod.spec?.automountServiceAccountToken, name).toBe(false);
      for (const container of pod.spec?.containers ?? []) {
        expect(container.securityContext?.allowPrivilegeEscalation, name).toBe(false);
        expect(container.securityContext?.readOnlyRootFilesystem, name).toBe(true);
        expect(container.securityContext?.capabilities?.drop, name).toEqual(['ALL']);
      }
    }
  });

  it('gives every component a writable /tmp on an emptyDir, its only writable path', () => {
    for (const [key] of enabled()) {
      const deployment = deploymentOf(key);
      const volumes = podOf(deployment).spec?.volumes ?? [];
      expect(containerOf(deployment).volumeMounts, key).toEqual([{ name: 'tmp', mountPath: '/tmp' }]);
      expect(volumes.find((v) => v.name === 'tmp')?.emptyDir, key).toBeDefined();
    }
  });

  it('shuts down gracefully: time to drain, and the gateway leaves the load balancer first', () => {
    for (const [key] of enabled()) {
      // Services give themselves 20 s to drain after SIGTERM.
      expect(podOf(deploymentOf(key)).spec?.terminationGracePeriodSeconds, key).toBeGreaterThanOrEqual(25);
    }
    expect(containerOf(deploymentOf('gateway')).lifecycle?.preStop?.exec?.command).toEqual(['sleep', '5']);
  });

  it('scales the pdf-signer on CPU with an HPA that owns its replica count', async () => {
    const values = (await readChartValues()).components.pdfSigner;
    const hpa = findManifest(manifests, 'HorizontalPodAutoscaler', 'esign-pdf-signer');
    expect(hpa.spec).toMatchObject({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'esign-pdf-signer' },
      minReplicas: values?.autoscaling?.minReplicas,
      maxReplicas: values?.autoscaling?.maxReplicas,
      metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization' } } }],
    });
    expect((deploymentOf('pdfSigner').spec as { replicas?: number }).replicas).toBeUndefined();
    expect(manifestsOf(manifests, 'HorizontalPodAutoscaler').map((m) => m.metadata.name)).toEqual([
      'esign-pdf-signer',
    ]);
  });

  it('gives every component a PodDisruptionBudget that selects exactly its pods', () => {
    for (const [key] of enabled()) {
      const pdb = findManifest(manifests, 'PodDisruptionBudget', `esign-${kebabCase(key)}`);
      const selector = (pdb.spec as { selector: { matchLabels: Record<string, string> } }).selector
        .matchLabels;
      const podLabels = podOf(deploymentOf(key)).metadata?.labels ?? {};
      expect(podLabels).toMatchObject(selector);
      expect(selector['app.kubernetes.io/component']).toBe(kebabCase(key));
    }
  });

  it('refers only to ConfigMaps, Secrets and Services that it renders itself', () => {
    const names = (kind: string) => new Set(manifestsOf(manifests, kind).map((m) => m.metadata.name));
    const secrets = names('Secret');
    const configMaps = names('ConfigMap');
    for (const workload of manifests.filter((m) => podTemplateOf(m))) {
      for (const container of podOf(workload).spec?.containers ?? []) {
        for (const env of container.env ?? []) {
          const ref = env.valueFrom?.secretKeyRef;
          if (ref) expect(secrets, `${workload.metadata.name} ${env.name}`).toContain(ref.name);
        }
        for (const from of container.envFrom ?? []) {
          if (from.configMapRef) expect(configMaps).toContain(from.configMapRef.name);
        }
      }
    }
    const common = findManifest(manifests, 'ConfigMap', 'esign-common').data as Record<string, string>;
    expect(common.NATS_URL).toBe('nats://esign-nats:4222');
    expect(common.S3_ENDPOINT).toBe('http://esign-minio:9000');
    expect(names('Service')).toEqual(
      new Set(['esign-gateway', 'esign-nats', 'esign-nats-headless', 'esign-postgresql', 'esign-minio']),
    );
  });

  it('wires each service to the settings it reads and no others', () => {
    const secretEnv = (key: string) =>
      (containerOf(deploymentOf(key)).env ?? []).filter((e) => e.valueFrom?.secretKeyRef).map((e) => e.name);
    expect(secretEnv('key')).toEqual(['DATABASE_URL']);
    // document-store: the database, and object storage for the sweep of signed PDFs without a record.
    expect(secretEnv('documentStore')).toEqual(['DATABASE_URL', 'S3_ACCESS_KEY', 'S3_SECRET_KEY']);
    expect(secretEnv('gateway')).toEqual(['S3_ACCESS_KEY', 'S3_SECRET_KEY']);
    expect(secretEnv('template')).toEqual(['S3_ACCESS_KEY', 'S3_SECRET_KEY']);
    // No signing key configured: pdf-signer makes its throwaway certificate.
    expect(secretEnv('pdfSigner')).toEqual(['S3_ACCESS_KEY', 'S3_SECRET_KEY']);
    // webhook: its tables, presigned download links, and the key that seals endpoint secrets.
    expect(secretEnv('webhook')).toEqual([
      'DATABASE_URL',
      'S3_ACCESS_KEY',
      'S3_SECRET_KEY',
      'WEBHOOK_SECRET_KEY',
    ]);
    for (const [key, values] of enabled()) {
      expect(containerOf(deploymentOf(key)).env, key).toContainEqual({
        name: 'OTEL_SERVICE_NAME',
        value: values.program,
      });
    }
  });

  it('runs in-cluster NATS with JetStream on a volume, Postgres and MinIO with generated credentials', () => {
    const nats = findManifest(manifests, 'StatefulSet', 'esign-nats');
    expect(containerOf(nats).args).toEqual(expect.arrayContaining(['--jetstream', '--store_dir', '/data']));
    expect((nats.spec as { volumeClaimTemplates?: unknown[] }).volumeClaimTemplates).toHaveLength(1);
    findManifest(manifests, 'StatefulSet', 'esign-postgresql');
    findManifest(manifests, 'StatefulSet', 'esign-minio');

    const database = findManifest(manifests, 'Secret', 'esign-postgresql').stringData as Record<
      string,
      string
    >;
    expect(database.POSTGRES_PASSWORD).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(database.DATABASE_URL).toBe(
      `postgres://esign:${database.POSTGRES_PASSWORD}@esign-postgresql:5432/esign`,
    );
    const minio = findManifest(manifests, 'Secret', 'esign-minio').stringData as Record<string, string>;
    expect(minio.S3_SECRET_KEY).toMatch(/^[A-Za-z0-9]{40}$/);
  });

  it('sets up the bucket and the expiry of uploads/ with a Job', () => {
    const [job, ...others] = manifestsOf(manifests, 'Job');
    expect(others).toEqual([]);
    const script = (containerOf(job as Manifest).args ?? []).join('\n');
    expect(script).toContain('mc mb --ignore-existing');
    expect(script).toContain('"Prefix":"uploads/"');
    expect(containerOf(job as Manifest).env).toContainEqual({ name: 'S3_BUCKET', value: 'esign' });
  });

  it('never renders a Secret with an empty value', () => {
    const secrets = manifestsOf(manifests, 'Secret');
    expect(secrets.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      const values = [secret.data, secret.stringData].flatMap((map) =>
        Object.values((map ?? {}) as Record<string, string>),
      );
      expect(values.length).toBeGreaterThan(0);
      for (const value of values) expect(value, secret.metadata.name).not.toBe('');
    }
  });
});
