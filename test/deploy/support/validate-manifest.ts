import { Deployment, StatefulSet } from 'kubernetes-models/apps/v1';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2';
import { Job } from 'kubernetes-models/batch/v1';
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1';
import { ConfigMap, Secret, Service, ServiceAccount } from 'kubernetes-models/v1';
import { Ajv } from 'ajv';
import { prometheusRuleSchema, scaledObjectSchema, serviceMonitorSchema } from './custom-resource-schemas';
import type { Manifest } from './manifest';

interface Validatable {
  validate(): void;
}

/** Wraps a kubernetes-models class: its constructor checks nothing, `validate()` checks the schema. */
const model =
  <T>(Model: new (data: T) => Validatable) =>
  (manifest: Manifest): Validatable =>
    new Model(manifest as unknown as T);

const ajv = new Ajv({ allErrors: true });

/** A custom resource checked against the schema of the fields the chart writes. */
const customResource = (schema: object) => {
  const check = ajv.compile(schema);
  return (manifest: Manifest): Validatable => ({
    validate: () => {
      if (!check(manifest)) throw new Error(ajv.errorsText(check.errors));
    },
  });
};

// The kinds the chart may render; anything else is a mistake (or needs adding here on purpose).
const models: Record<string, (manifest: Manifest) => Validatable> = {
  'apps/v1/Deployment': model(Deployment),
  'apps/v1/StatefulSet': model(StatefulSet),
  'autoscaling/v2/HorizontalPodAutoscaler': model(HorizontalPodAutoscaler),
  'batch/v1/Job': model(Job),
  'networking.k8s.io/v1/Ingress': model(Ingress),
  'policy/v1/PodDisruptionBudget': model(PodDisruptionBudget),
  'v1/ConfigMap': model(ConfigMap),
  'v1/Secret': model(Secret),
  'v1/Service': model(Service),
  'v1/ServiceAccount': model(ServiceAccount),
  'monitoring.coreos.com/v1/ServiceMonitor': customResource(serviceMonitorSchema),
  'monitoring.coreos.com/v1/PrometheusRule': customResource(prometheusRuleSchema),
  'keda.sh/v1alpha1/ScaledObject': customResource(scaledObjectSchema),
};

/** Check one object against the Kubernetes OpenAPI schema of its kind; throws naming what is wrong. */
export const validateManifest = (manifest: Manifest): void => {
  const build = models[`${manifest.apiVersion}/${manifest.kind}`];
  if (!build)
    throw new Error(`unexpected kind ${manifest.apiVersion} ${manifest.kind} (${manifest.metadata.name})`);
  try {
    build(manifest).validate();
  } catch (err) {
    throw new Error(`${manifest.kind} ${manifest.metadata.name} is invalid: ${(err as Error).message}`, {
      cause: err,
    });
  }
};
