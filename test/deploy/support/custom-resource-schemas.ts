/**
 * The parts of the custom resources the chart renders (Prometheus Operator, KEDA) that the chart
 * fills in, as JSON schemas: kubernetes-models has no models for CRDs, and a typo in a field name
 * would otherwise pass unnoticed until the operator ignored it. Closed objects (additionalProperties
 * false) where the chart writes every field; names and shapes from the CRDs' reference documentation.
 */
const labels = { type: 'object', additionalProperties: { type: 'string' } } as const;
const metadata = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', minLength: 1, maxLength: 63 }, labels, annotations: labels },
} as const;
const duration = { type: 'string', pattern: '^([0-9]+(ms|s|m|h|d|w|y))+$' } as const;

const resource = (apiVersion: string, kind: string, spec: object) => ({
  type: 'object',
  required: ['apiVersion', 'kind', 'metadata', 'spec'],
  additionalProperties: false,
  properties: { apiVersion: { const: apiVersion }, kind: { const: kind }, metadata, spec },
});

/** monitoring.coreos.com/v1 ServiceMonitor. */
export const serviceMonitorSchema = resource('monitoring.coreos.com/v1', 'ServiceMonitor', {
  type: 'object',
  required: ['selector', 'endpoints'],
  additionalProperties: false,
  properties: {
    namespaceSelector: {
      type: 'object',
      additionalProperties: false,
      properties: { matchNames: { type: 'array', items: { type: 'string' } }, any: { type: 'boolean' } },
    },
    selector: {
      type: 'object',
      additionalProperties: false,
      required: ['matchLabels'],
      properties: { matchLabels: labels },
    },
    endpoints: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['port'],
        properties: {
          port: { type: 'string' },
          path: { type: 'string', pattern: '^/' },
          interval: duration,
          scrapeTimeout: duration,
          relabelings: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              properties: {
                action: { enum: ['replace', 'keep', 'drop', 'labelmap', 'labeldrop', 'labelkeep'] },
                sourceLabels: { type: 'array', items: { type: 'string' } },
                targetLabel: { type: 'string' },
                replacement: { type: 'string' },
                regex: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
});

/** monitoring.coreos.com/v1 PrometheusRule (the rules themselves are checked by promtool). */
export const prometheusRuleSchema = resource('monitoring.coreos.com/v1', 'PrometheusRule', {
  type: 'object',
  required: ['groups'],
  additionalProperties: false,
  properties: {
    groups: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['name', 'rules'],
        additionalProperties: false,
        properties: {
          name: { type: 'string' },
          interval: duration,
          rules: {
            type: 'array',
            items: {
              type: 'object',
              required: ['expr'],
              additionalProperties: false,
              properties: {
                alert: { type: 'string' },
                record: { type: 'string' },
                expr: { type: 'string', minLength: 1 },
                for: duration,
                labels,
                annotations: labels,
              },
            },
          },
        },
      },
    },
  },
});

/** keda.sh/v1alpha1 ScaledObject. */
export const scaledObjectSchema = resource('keda.sh/v1alpha1', 'ScaledObject', {
  type: 'object',
  required: ['scaleTargetRef', 'triggers'],
  additionalProperties: false,
  properties: {
    scaleTargetRef: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: { apiVersion: { type: 'string' }, kind: { type: 'string' }, name: { type: 'string' } },
    },
    minReplicaCount: { type: 'integer', minimum: 0 },
    maxReplicaCount: { type: 'integer', minimum: 1 },
    pollingInterval: { type: 'integer', minimum: 1 },
    cooldownPeriod: { type: 'integer', minimum: 0 },
    advanced: {
      type: 'object',
      additionalProperties: false,
      properties: {
        horizontalPodAutoscalerConfig: {
          type: 'object',
          additionalProperties: false,
          properties: { name: { type: 'string' }, behavior: { type: 'object' } },
        },
      },
    },
    triggers: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['type', 'metadata'],
        additionalProperties: false,
        properties: {
          type: { type: 'string' },
          name: { type: 'string' },
          metricType: { enum: ['AverageValue', 'Value', 'Utilization'] },
          // KEDA reads every trigger setting as a string.
          metadata: { type: 'object', additionalProperties: { type: 'string' } },
        },
      },
    },
  },
});
