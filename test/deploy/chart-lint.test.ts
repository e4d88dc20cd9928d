import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chartDir } from './support/paths';
import { renderChart, templateChart } from './support/render-chart';
import { runHelm } from './support/run-helm';
import { validateManifest } from './support/validate-manifest';

const kindValues = join(chartDir, 'values-kind.yaml');

describe('helm lint', () => {
  it('passes with the default values', async () => {
    const result = await runHelm(['lint', chartDir, '--strict']);
    expect(result.stderr + result.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(result.code).toBe(0);
  });

  it('passes with values-kind.yaml', async () => {
    const result = await runHelm(['lint', chartDir, '--strict', '--values', kindValues]);
    expect(result.stderr + result.stdout).toContain('1 chart(s) linted, 0 chart(s) failed');
    expect(result.code).toBe(0);
  });

  it('rejects values the schema does not allow, naming the field', async () => {
    const result = await templateChart({
      values: { config: { logLevel: 'chatty' }, components: { gateway: { replica: 2 } } },
    });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('/config/logLevel');
    expect(result.stderr).toContain("additional properties 'replica' not allowed");
  });
});

describe('values-kind.yaml', () => {
  it('renders a valid one-replica stack that uses the locally loaded image', async () => {
    const manifests = await renderChart({ valuesFiles: [kindValues] });
    for (const manifest of manifests) validateManifest(manifest);
    const deployments = manifests.filter((m) => m.kind === 'Deployment');
    expect(deployments.length).toBe(6);
    for (const deployment of deployments) {
      const spec = deployment.spec as {
        replicas?: number;
        template: { spec: { containers: { image: string; imagePullPolicy: string }[] } };
      };
      if (deployment.metadata.name !== 'esign-pdf-signer') expect(spec.replicas).toBe(1);
      expect(spec.template.spec.containers[0]).toMatchObject({
        image: 'esign:dev',
        imagePullPolicy: 'Never',
      });
    }
  });
});

describe('shutdown', () => {
  it('gives every service time for its preStop delay and its SHUTDOWN_GRACE_MS before Kubernetes kills it', async () => {
    const manifests = await renderChart();
    const graceOf = (name: string) => {
      const deployment = manifests.find(
        (m) => m.kind === 'Deployment' && m.metadata.name === `esign-${name}`,
      );
      const pod = (
        deployment?.spec as {
          template: {
            spec: {
              terminationGracePeriodSeconds: number;
              containers: {
                env?: { name: string; value?: string }[];
                lifecycle?: { preStop?: { exec: { command: string[] } } };
              }[];
            };
          };
        }
      ).template.spec;
      const container = pod.containers[0];
      const preStop = Number(container?.lifecycle?.preStop?.exec.command[1] ?? 0);
      const grace = container?.env?.find((e) => e.name === 'SHUTDOWN_GRACE_MS')?.value;
      return { total: pod.terminationGracePeriodSeconds, preStop, grace: grace ? Number(grace) : undefined };
    };
    // The services' own defaults (libs/config, services/pdf-signer/src/config.ts) when the chart sets none.
    const gateway = graceOf('gateway');
    expect(gateway.preStop).toBe(5);
    expect(gateway.total).toBeGreaterThanOrEqual(gateway.preStop + (gateway.grace ?? 20_000) / 1000 + 5);
    const signer = graceOf('pdf-signer');
    expect(signer.preStop).toBe(0);
    expect(signer.total).toBeGreaterThanOrEqual((signer.grace ?? 40_000) / 1000 + 5);
  });
});
