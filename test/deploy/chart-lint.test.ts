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
