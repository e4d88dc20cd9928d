import { describe, expect, it } from 'vitest';
import { findManifest, manifestsOf } from './support/find-manifest';
import { podTemplateOf } from './support/pod-template-of';
import { renderChart, renderNotes, templateChart } from './support/render-chart';

const external = {
  nats: { enabled: false },
  postgresql: { enabled: false },
  minio: { enabled: false },
  externalNats: { url: 'nats://nats:4222' },
  externalS3: { endpoint: 'https://s3.example.com' },
};

// Placeholder PEM text (not a key): the chart only has to carry it into a Secret.
const pemBlock = (label: string) =>
  ['-----BEGIN', label, '-----\nplaceholder\n-----END', label, '-----\n'].join(' ');
const keyPem = pemBlock('PRIVATE KEY');
const certPem = '-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----\n';
const webhookKey = Buffer.alloc(32, 9).toString('base64');

const envOf = async (values: object, deployment: string) => {
  const manifests = await renderChart({ values });
  return podTemplateOf(findManifest(manifests, 'Deployment', deployment))?.spec?.containers[0]?.env ?? [];
};

describe('secrets', () => {
  it('puts credentials given as values into Secrets, each holding exactly what was given', async () => {
    const manifests = await renderChart({
      values: {
        ...external,
        externalDatabase: { url: 'postgres://esign:s3cret@db:5432/esign' },
        externalS3: { endpoint: 'https://s3.example.com', accessKey: 'AKIA1', secretKey: 'shh' },
        signing: { keyPem, certPem },
        webhooks: { secretKey: webhookKey },
      },
    });
    const data = (name: string) => findManifest(manifests, 'Secret', name).stringData;
    expect(data('esign-database')).toEqual({ DATABASE_URL: 'postgres://esign:s3cret@db:5432/esign' });
    expect(data('esign-s3')).toEqual({ S3_ACCESS_KEY: 'AKIA1', S3_SECRET_KEY: 'shh' });
    expect(data('esign-signing')).toEqual({ SIGNING_KEY_PEM: keyPem, SIGNING_CERT_PEM: certPem });
    expect(data('esign-webhook')).toEqual({ WEBHOOK_SECRET_KEY: webhookKey });
    expect(manifestsOf(manifests, 'Secret')).toHaveLength(4);
  });

  it('generates the webhook key when none is given, and keeps its Secret on uninstall', async () => {
    const manifests = await renderChart({
      values: {
        ...external,
        externalDatabase: { existingSecret: 'db' },
        externalS3: { ...external.externalS3, existingSecret: 's3' },
      },
    });
    const secret = findManifest(manifests, 'Secret', 'esign-webhook');
    expect(
      Buffer.from((secret.stringData as Record<string, string>).WEBHOOK_SECRET_KEY ?? '', 'base64'),
    ).toHaveLength(32);
    expect(secret.metadata.annotations).toEqual({ 'helm.sh/resource-policy': 'keep' });
    const env = podTemplateOf(findManifest(manifests, 'Deployment', 'esign-webhook'))?.spec?.containers[0]
      ?.env;
    expect(env).toContainEqual({
      name: 'WEBHOOK_SECRET_KEY',
      valueFrom: { secretKeyRef: { name: 'esign-webhook', key: 'WEBHOOK_SECRET_KEY' } },
    });
  });

  it('never renders a Secret from an empty value: no signing key means no signing Secret and no variables', async () => {
    const manifests = await renderChart({
      values: {
        ...external,
        externalDatabase: { existingSecret: 'db' },
        externalS3: { ...external.externalS3, existingSecret: 's3' },
        webhooks: { existingSecret: 'webhook' },
      },
    });
    expect(manifestsOf(manifests, 'Secret')).toEqual([]);
    const env = podTemplateOf(findManifest(manifests, 'Deployment', 'esign-pdf-signer'))?.spec?.containers[0]
      ?.env;
    expect(env?.map((e) => e.name)).not.toContain('SIGNING_KEY_PEM');
    expect(env?.map((e) => e.name)).not.toContain('SIGNING_CERT_PEM');
  });

  it('warns in NOTES.txt when the signer has no key of its own, and not when it has one', async () => {
    expect(await renderNotes()).toContain('WARNING: no signing key is configured');
    expect(await renderNotes({ values: { signing: { existingSecret: 'esign-signing' } } })).not.toContain(
      'WARNING',
    );
  });

  it('takes the signing key from an existing Secret without copying it', async () => {
    const env = await envOf({ signing: { existingSecret: 'my-signing' } }, 'esign-pdf-signer');
    expect(env).toContainEqual({
      name: 'SIGNING_KEY_PEM',
      valueFrom: { secretKeyRef: { name: 'my-signing', key: 'SIGNING_KEY_PEM' } },
    });
  });

  it('reads a NATS URL that carries credentials from an existing Secret, not from the ConfigMap', async () => {
    const manifests = await renderChart({
      values: { nats: { enabled: false }, externalNats: { existingSecret: 'nats-creds' } },
    });
    expect(findManifest(manifests, 'ConfigMap', 'esign-common').data).not.toHaveProperty('NATS_URL');
    for (const deployment of manifestsOf(manifests, 'Deployment')) {
      expect(podTemplateOf(deployment)?.spec?.containers[0]?.env, deployment.metadata.name).toContainEqual({
        name: 'NATS_URL',
        valueFrom: { secretKeyRef: { name: 'nats-creds', key: 'NATS_URL' } },
      });
    }
  });

  it('refuses to render when a needed credential is missing, naming the values to set', async () => {
    const noDatabase = await templateChart({ values: { postgresql: { enabled: false } } });
    expect(noDatabase.code).not.toBe(0);
    expect(noDatabase.stderr).toContain('externalDatabase.existingSecret');

    const noS3Keys = await templateChart({
      values: { minio: { enabled: false }, externalS3: { endpoint: 'https://s3' } },
    });
    expect(noS3Keys.code).not.toBe(0);
    expect(noS3Keys.stderr).toContain('externalS3.existingSecret');

    const noNats = await templateChart({ values: { nats: { enabled: false } } });
    expect(noNats.code).not.toBe(0);
    expect(noNats.stderr).toContain('externalNats.url');

    const halfKey = await templateChart({ values: { signing: { keyPem } } });
    expect(halfKey.code).not.toBe(0);
    expect(halfKey.stderr).toContain('signing.certPem');
  });
});
