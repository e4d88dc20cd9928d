import type { IContainer } from 'kubernetes-models/v1';
import { beforeAll, describe, expect, it } from 'vitest';
import { findManifest, manifestsOf } from './support/find-manifest';
import type { Manifest } from './support/manifest';
import { podTemplateOf } from './support/pod-template-of';
import { renderChart } from './support/render-chart';
import { validateManifest } from './support/validate-manifest';

// A production-like configuration: managed NATS, Postgres and S3; every credential in an existing
// Secret made outside the chart; an ingress with TLS; traces to a collector.
const externalValues = {
  nats: { enabled: false },
  postgresql: { enabled: false },
  minio: { enabled: false },
  externalNats: { url: 'nats://nats.messaging:4222' },
  // A three-server NATS cluster: the events stream on three replicas.
  config: { busStreamReplicas: 3 },
  externalDatabase: { existingSecret: 'esign-db', existingSecretKey: 'uri' },
  externalS3: { endpoint: 'https://s3.eu-central-1.amazonaws.com', existingSecret: 'esign-s3' },
  objectStorage: { bucket: 'acme-esign', region: 'eu-central-1', createBucket: false },
  signing: { existingSecret: 'esign-signing' },
  webhooks: { existingSecret: 'esign-webhook', allowNetworks: '10.20.0.0/16' },
  otel: { endpoint: 'http://otel-collector.observability:4318' },
  ingress: {
    enabled: true,
    className: 'nginx',
    host: 'sign.acme.example',
    tls: { enabled: true, secretName: 'sign-acme-tls' },
  },
  components: { pdfSigner: { autoscaling: { minReplicas: 3, maxReplicas: 30 } } },
};

let manifests: Manifest[];

beforeAll(async () => {
  manifests = await renderChart({ values: externalValues, release: 'prod' });
});

const containerOf = (name: string): IContainer => {
  const container = podTemplateOf(findManifest(manifests, 'Deployment', name))?.spec?.containers[0];
  if (!container) throw new Error(`${name} has no container`);
  return container;
};
const secretRefs = (name: string) =>
  Object.fromEntries(
    (containerOf(name).env ?? []).flatMap((e) =>
      e.valueFrom?.secretKeyRef
        ? [[e.name, `${e.valueFrom.secretKeyRef.name}/${e.valueFrom.secretKeyRef.key}`]]
        : [],
    ),
  );

describe('the chart with external infrastructure', () => {
  it('renders only objects that pass the Kubernetes schema of their kind', () => {
    for (const manifest of manifests) validateManifest(manifest);
  });

  it('runs no NATS, Postgres or MinIO of its own, and no bucket Job when told not to', () => {
    expect(manifestsOf(manifests, 'StatefulSet')).toEqual([]);
    expect(manifestsOf(manifests, 'Job')).toEqual([]);
    expect(
      manifestsOf(manifests, 'Deployment')
        .map((m) => m.metadata.name)
        .sort(),
    ).toEqual([
      'prod-esign-document-store',
      'prod-esign-gateway',
      'prod-esign-key',
      'prod-esign-pdf-signer',
      'prod-esign-template',
      'prod-esign-webhook',
    ]);
  });

  it('renders no Secret: every credential comes from the existing Secrets it was given', () => {
    expect(manifestsOf(manifests, 'Secret')).toEqual([]);
    expect(secretRefs('prod-esign-key')).toEqual({ DATABASE_URL: 'esign-db/uri' });
    expect(secretRefs('prod-esign-document-store')).toEqual({
      DATABASE_URL: 'esign-db/uri',
      S3_ACCESS_KEY: 'esign-s3/S3_ACCESS_KEY',
      S3_SECRET_KEY: 'esign-s3/S3_SECRET_KEY',
    });
    expect(secretRefs('prod-esign-gateway')).toEqual({
      S3_ACCESS_KEY: 'esign-s3/S3_ACCESS_KEY',
      S3_SECRET_KEY: 'esign-s3/S3_SECRET_KEY',
    });
    expect(secretRefs('prod-esign-pdf-signer')).toEqual({
      S3_ACCESS_KEY: 'esign-s3/S3_ACCESS_KEY',
      S3_SECRET_KEY: 'esign-s3/S3_SECRET_KEY',
      SIGNING_KEY_PEM: 'esign-signing/SIGNING_KEY_PEM',
      SIGNING_CERT_PEM: 'esign-signing/SIGNING_CERT_PEM',
    });
    expect(secretRefs('prod-esign-webhook')).toEqual({
      DATABASE_URL: 'esign-db/uri',
      S3_ACCESS_KEY: 'esign-s3/S3_ACCESS_KEY',
      S3_SECRET_KEY: 'esign-s3/S3_SECRET_KEY',
      WEBHOOK_SECRET_KEY: 'esign-webhook/WEBHOOK_SECRET_KEY',
    });
    expect(containerOf('prod-esign-webhook').env).toContainEqual({
      name: 'WEBHOOK_ALLOW_NETWORKS',
      value: '10.20.0.0/16',
    });
  });

  it('puts the external endpoints, the public URL and the OTLP endpoint in the common ConfigMap', () => {
    const common = findManifest(manifests, 'ConfigMap', 'prod-esign-common').data as Record<string, string>;
    expect(common).toEqual({
      NODE_ENV: 'production',
      LOG_LEVEL: 'info',
      BUS_TIMEOUT_MS: '30000',
      BUS_STREAM_REPLICAS: '3',
      NATS_URL: 'nats://nats.messaging:4222',
      S3_ENDPOINT: 'https://s3.eu-central-1.amazonaws.com',
      S3_BUCKET: 'acme-esign',
      S3_REGION: 'eu-central-1',
      PUBLIC_BASE_URL: 'https://sign.acme.example',
      METRICS_EXPORTER: 'prometheus',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector.observability:4318',
    });
  });

  it('routes the ingress host over TLS to the gateway Service', () => {
    const ingress = findManifest(manifests, 'Ingress', 'prod-esign-gateway');
    expect(ingress.spec).toEqual({
      ingressClassName: 'nginx',
      tls: [{ hosts: ['sign.acme.example'], secretName: 'sign-acme-tls' }],
      rules: [
        {
          host: 'sign.acme.example',
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: 'prod-esign-gateway', port: { name: 'http' } } },
              },
            ],
          },
        },
      ],
    });
    const service = findManifest(manifests, 'Service', 'prod-esign-gateway');
    expect((service.spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toEqual(['http']);
  });

  it('takes the signer autoscaling bounds from values', () => {
    expect(findManifest(manifests, 'HorizontalPodAutoscaler', 'prod-esign-pdf-signer').spec).toMatchObject({
      minReplicas: 3,
      maxReplicas: 30,
    });
  });
});
