import { describe, expect, it } from 'vitest';
import { findManifest } from './support/find-manifest';
import { kebabCase } from './support/kebab-case';
import { podTemplateOf } from './support/pod-template-of';
import { renderChart } from './support/render-chart';
import { validateManifest } from './support/validate-manifest';

const componentOf = (labels: Record<string, string> | undefined) => labels?.['app.kubernetes.io/component'];

describe('the components map', () => {
  it.each(['gateway', 'key', 'documentStore', 'pdfSigner', 'template'])(
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

  it('runs the mailer once enabled, with its database, SMTP and sender settings', async () => {
    const manifests = await renderChart({
      values: {
        components: { mailer: { enabled: true } },
        mail: { smtpUrl: 'smtp://relay:587', from: 'Sign <s@x.io>' },
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
        { name: 'SMTP_URL', valueFrom: { secretKeyRef: { name: 'esign-mail', key: 'SMTP_URL' } } },
        { name: 'MAIL_FROM', value: 'Sign <s@x.io>' },
      ]),
    );
    expect(findManifest(manifests, 'Secret', 'esign-mail').stringData).toEqual({
      SMTP_URL: 'smtp://relay:587',
    });
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
