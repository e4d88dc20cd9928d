import type { IPodTemplateSpec } from 'kubernetes-models/v1';
import type { Manifest } from './manifest';

const workloadKinds = new Set(['Deployment', 'StatefulSet', 'Job']);

/** The pod template of a Deployment, StatefulSet or Job; undefined for any other kind. */
export const podTemplateOf = (manifest: Manifest): IPodTemplateSpec | undefined => {
  if (!workloadKinds.has(manifest.kind)) return undefined;
  const spec = manifest.spec as { template?: IPodTemplateSpec } | undefined;
  return spec?.template;
};
