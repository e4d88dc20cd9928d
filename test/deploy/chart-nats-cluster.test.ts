import type { IService } from 'kubernetes-models/v1';
import type { IStatefulSet } from 'kubernetes-models/apps/v1';
import { beforeAll, describe, expect, it } from 'vitest';
import { findManifest } from './support/find-manifest';
import type { Manifest } from './support/manifest';
import { renderChart } from './support/render-chart';
import { validateManifest } from './support/validate-manifest';

// In-cluster NATS as a three-server JetStream cluster (nats.cluster.enabled), the way
// `pnpm chaos --only cluster` runs it (docs/faults.md).
let manifests: Manifest[];

beforeAll(async () => {
  manifests = await renderChart({ values: { nats: { cluster: { enabled: true } } } });
});

const common = () => findManifest(manifests, 'ConfigMap', 'esign-common').data as Record<string, string>;

describe('the chart with a NATS cluster', () => {
  it('renders only objects that pass the Kubernetes schema of their kind', () => {
    for (const manifest of manifests) validateManifest(manifest);
  });

  it('runs three NATS servers started together, routed to each other by their stable names', () => {
    const nats = findManifest(manifests, 'StatefulSet', 'esign-nats') as unknown as IStatefulSet;
    expect(nats.spec?.replicas).toBe(3);
    expect(nats.spec?.podManagementPolicy).toBe('Parallel');
    const container = nats.spec?.template.spec?.containers[0];
    const args = container?.args ?? [];
    const arg = (flag: string) => args[args.indexOf(flag) + 1];
    expect(arg('--routes')).toBe(
      [0, 1, 2].map((i) => `nats://esign-nats-${i}.esign-nats-headless:6222`).join(','),
    );
    expect(arg('--server_name')).toBe('$(POD_NAME)');
    expect(arg('--cluster')).toBe('nats://0.0.0.0:6222');
    expect(container?.ports?.map((p) => p.containerPort)).toContain(6222);
    const headless = findManifest(manifests, 'Service', 'esign-nats-headless') as unknown as IService;
    expect(headless.spec?.publishNotReadyAddresses).toBe(true);
    expect(headless.spec?.ports?.map((p) => p.port)).toContain(6222);
  });

  it('gives the services every server and three replicas for each stream', () => {
    expect(common().NATS_URL?.split(',')).toEqual(
      [0, 1, 2].map((i) => `nats://esign-nats-${i}.esign-nats-headless:4222`),
    );
    expect(common().BUS_STREAM_REPLICAS).toBe('3');
  });

  it('keeps one server and one replica by default', async () => {
    const single = await renderChart();
    const nats = findManifest(single, 'StatefulSet', 'esign-nats') as unknown as IStatefulSet;
    expect(nats.spec?.replicas).toBe(1);
    expect(nats.spec?.template.spec?.containers[0]?.args).not.toContain('--routes');
    const data = findManifest(single, 'ConfigMap', 'esign-common').data as Record<string, string>;
    expect(data.BUS_STREAM_REPLICAS).toBe('1');
  });
});
