import { describe, expect, it } from 'vitest';
import { findManifest } from './support/find-manifest';
import { kebabCase } from './support/kebab-case';
import { podTemplateOf } from './support/pod-template-of';
import { renderChart } from './support/render-chart';
import { validateManifest } from './support/validate-manifest';

const componentOf = (labels: Record<string, string> | undefined) => labels?.['app.kubernetes.io/component'];

describe('the components map', () => {
  it.each(['gateway', 'key', 'documentStore', 'pdfSigner', 'template', 'webhook'])(
    'removes every object of %s when it is disabled, and only those',
    async (key) => {
      const all = await renderChart();
      const without = await renderChart({ values: { components: { [key]: { enabled: false } } } });
      const ofComponent = all.filter((m) => componentOf(m.metadata.labels) === kebabCase(key));
      expect(ofComponent.map((m) => m.kind)).toContain('Deployment');
      expect(ofComponent.map((m) => m.kind)).toContain('PodDisruptionBudget');
      expect(without.filter((m) => componentOf(m.metadata.labels) === kebabCase(key))).toEqual([]);
      // Everything else stays (the in-cluster Secrets are regenerated, so compare names, not content).
      const names = (list: typeof all) => list.map((m) => `${m.kind}/${m.metadata.name}`).sort();
      expect(names(without)).toEqual(names(all.filter((m) => !ofComponent.includes(m))));
    },
  );

  it('runs the mailer once enabled: SMTP host, port and TLS from values, credentials from a Secret', async () => {
    const manifests = await renderChart({
      values: {
        components: { mailer: { enabled: true } },
        config: { publicBaseUrl: 'https://sign.example.com' },
        mail: {
          smtp: { host: 'relay.example.com', port: 465, tls: 'tls' },
          user: 'relay-user',
          password: 'relay-secret',
          from: 'Sign <s@x.io>',
        },
      },
    });
    const mailer = findManifest(manifests, 'Deployment', 'esign-mailer');
    validateManifest(mailer);
    const container = podTemplateOf(mailer)?.spec?.containers[0];
    expect(container?.args).toEqual(['mailer']);
    expect(container?.env).toEqual(
      expect.arrayContaining([
        {
          name: 'DATABASE_URL',
          valueFrom: { secretKeyRef: { name: 'esign-postgresql', key: 'DATABASE_URL' } },
        },
        { name: 'S3_ACCESS_KEY', valueFrom: { secretKeyRef: { name: 'esign-minio', key: 'S3_ACCESS_KEY' } } },
        { name: 'SMTP_HOST', value: 'relay.example.com' },
        { name: 'SMTP_PORT', value: '465' },
        { name: 'SMTP_TLS', value: 'tls' },
        { name: 'MAIL_FROM', value: 'Sign <s@x.io>' },
        { name: 'MAIL_ATTACHMENT_MAX_BYTES', value: '10485760' },
        { name: 'SMTP_USER', valueFrom: { secretKeyRef: { name: 'esign-mail', key: 'SMTP_USER' } } },
        { name: 'SMTP_PASSWORD', valueFrom: { secretKeyRef: { name: 'esign-mail', key: 'SMTP_PASSWORD' } } },
      ]),
    );
    // The password is in the Secret only, never in the Deployment.
    expect(JSON.stringify(mailer)).not.toContain('relay-secret');
    expect(findManifest(manifests, 'Secret', 'esign-mail').stringData).toEqual({
      SMTP_USER: 'relay-user',
      SMTP_PASSWORD: 'relay-secret',
    });
  });

  it('refuses to enable the mailer without an SMTP host or a public URL for its links', async () => {
    await expect(renderChart({ values: { components: { mailer: { enabled: true } } } })).rejects.toThrow(
      /mail\.smtp\.host/,
    );
    await expect(
      renderChart({
        values: { components: { mailer: { enabled: true } }, mail: { smtp: { host: 'relay' } } },
      }),
    ).rejects.toThrow(/publicBaseUrl/);
  });

  it('renders a new entry of the map with the same template, no new file needed', async () => {
    const manifests = await renderChart({
      values: {
        components: {
          reportWorker: {
            enabled: true,
            program: 'template',
            replicas: 3,
            needs: ['objectStorage'],
            ports: { health: { containerPort: 9191, env: 'HEALTH_PORT' } },
            probes: {
              port: 'health',
              liveness: { path: '/healthz' },
              readiness: { path: '/readyz' },
            },
            resources: { requests: { cpu: '10m', memory: '64Mi' }, limits: { memory: '128Mi' } },
            env: { EXTRA: 'yes' },
            autoscaling: {
              enabled: true,
              minReplicas: 1,
              maxReplicas: 5,
              targetCPUUtilizationPercentage: 50,
            },
            pdb: { enabled: true },
          },
        },
      },
    });
    const deployment = findManifest(manifests, 'Deployment', 'esign-report-worker');
    validateManifest(deployment);
    const container = podTemplateOf(deployment)?.spec?.containers[0];
    expect(container?.env).toEqual(
      expect.arrayContaining([
        { name: 'HEALTH_PORT', value: '9191' },
        { name: 'EXTRA', value: 'yes' },
      ]),
    );
    expect(container?.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'health' });
    findManifest(manifests, 'HorizontalPodAutoscaler', 'esign-report-worker');
    findManifest(manifests, 'PodDisruptionBudget', 'esign-report-worker');
  });
});
