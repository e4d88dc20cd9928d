import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { chartDir, repoRoot } from './support/paths';
import { runCommand } from './support/run-command';

interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  profiles?: string[];
  restart?: string;
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test?: string[]; disable?: boolean };
  depends_on?: Record<string, { condition?: string }> | string[];
  deploy?: { resources?: { limits?: { memory?: string } } };
  read_only?: boolean;
  tmpfs?: string[];
  cap_drop?: string[];
  volumes?: string[];
}
interface ComposeFile {
  name?: string;
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

const readCompose = async (file: string): Promise<ComposeFile> =>
  // `merge` resolves the `<<:` keys the file uses to share settings between services.
  parse(await readFile(join(repoRoot, 'deploy', file), 'utf8'), { merge: true }) as ComposeFile;

let compose: ComposeFile;
let services: [string, ComposeService][];

beforeAll(async () => {
  compose = await readCompose('compose.yaml');
  services = Object.entries(compose.services);
});

/** Services others wait for with service_completed_successfully: set-up tasks that run once and exit. */
const oneShotTasks = () =>
  new Set(
    services.flatMap(([, s]) =>
      Object.entries(Array.isArray(s.depends_on) ? {} : (s.depends_on ?? {}))
        .filter(([, d]) => d.condition === 'service_completed_successfully')
        .map(([name]) => name),
    ),
  );
const appServices = () => services.filter(([, s]) => s.build);

describe('deploy/compose.yaml', () => {
  it('runs the infrastructure, the set-up task and every service', () => {
    expect(compose.name).toBe('esign');
    expect(Object.keys(compose.services).sort()).toEqual(
      [
        'nats',
        'postgres',
        'minio',
        'minio-setup',
        'mailpit',
        'jaeger',
        'prometheus',
        'grafana',
        'gateway',
        'key',
        'document-store',
        'pdf-signer',
        'template',
        'webhook',
        'mailer',
      ].sort(),
    );
  });

  it('gives every long-running service a healthcheck and a restart policy', () => {
    const tasks = oneShotTasks();
    expect([...tasks]).toEqual(['minio-setup']);
    for (const [name, service] of services) {
      if (tasks.has(name)) {
        // A task exits when done: a healthcheck would never report, and a restart would loop.
        expect(service.restart, name).toBe('no');
        continue;
      }
      expect(service.healthcheck?.test?.length, name).toBeGreaterThan(1);
      expect(service.healthcheck?.disable, name).toBeUndefined();
      expect(service.restart, name).toBe('unless-stopped');
    }
  });

  it('caps the memory of every service', () => {
    for (const [name, service] of services) {
      expect(service.deploy?.resources?.limits?.memory, name).toMatch(/^\d+[MG]$/);
    }
  });

  it('starts each service only once what it depends on is healthy (or, for the set-up task, done)', () => {
    for (const [name, service] of services) {
      expect(Array.isArray(service.depends_on), `${name} lists depends_on without conditions`).toBe(false);
      for (const [dependency, { condition }] of Object.entries(
        (service.depends_on ?? {}) as Record<string, { condition?: string }>,
      )) {
        expect(compose.services[dependency], `${name} -> ${dependency}`).toBeDefined();
        expect(condition, `${name} -> ${dependency}`).toBe(
          oneShotTasks().has(dependency) ? 'service_completed_successfully' : 'service_healthy',
        );
      }
    }
    const dependsOn = (name: string) => Object.keys(compose.services[name]?.depends_on ?? {});
    expect(dependsOn('key')).toEqual(expect.arrayContaining(['nats', 'postgres']));
    expect(dependsOn('document-store')).toEqual(expect.arrayContaining(['nats', 'postgres']));
    expect(dependsOn('pdf-signer')).toEqual(expect.arrayContaining(['nats', 'minio-setup']));
    expect(dependsOn('webhook')).toEqual(expect.arrayContaining(['nats', 'postgres', 'minio-setup']));
    expect(dependsOn('gateway')).toEqual(
      expect.arrayContaining(['key', 'document-store', 'pdf-signer', 'template', 'minio-setup']),
    );
  });

  it('builds every service from the one Dockerfile and runs a program of the workspace', () => {
    const apps = appServices();
    expect(apps.map(([name]) => name).sort()).toEqual(
      ['gateway', 'key', 'document-store', 'pdf-signer', 'template', 'webhook', 'mailer'].sort(),
    );
    for (const [name, service] of apps) {
      expect(service.build, name).toEqual({ context: '..', dockerfile: 'deploy/docker/Dockerfile' });
      expect(service.command, name).toEqual([name]);
      expect(service.environment?.OTEL_SERVICE_NAME, name).toBe(name);
      expect(service.environment?.NATS_URL, name).toBe('nats://nats:4222');
      expect(service, name).toMatchObject({ read_only: true, tmpfs: ['/tmp'], cap_drop: ['ALL'] });
      expect(existsSync(join(repoRoot, 'services', name, 'package.json')), name).toBe(true);
    }
  });

  it('publishes the gateway on 8080 and points the services at the compose infrastructure', () => {
    const env = (name: string) => compose.services[name]?.environment ?? {};
    expect(compose.services.gateway?.ports).toEqual(['${GATEWAY_PORT:-8080}:8080']);
    expect(env('gateway').PORT).toBe('8080');
    for (const name of ['gateway', 'pdf-signer', 'template', 'mailer', 'webhook']) {
      expect(env(name)).toMatchObject({ S3_ENDPOINT: 'http://minio:9000', S3_BUCKET: 'esign' });
    }
    for (const name of ['key', 'document-store', 'mailer', 'webhook']) {
      expect(env(name).DATABASE_URL).toMatch(/^postgres:\/\/esign:.+@postgres:5432\/esign$/);
    }
    expect(env('mailer')).toMatchObject({ SMTP_HOST: 'mailpit', SMTP_PORT: '1025', SMTP_TLS: 'none' });
    expect(compose.services.mailer?.profiles).toBeUndefined();
    for (const [name, service] of appServices()) {
      // An empty optional variable would fail the services' config validation: never pass one.
      for (const [variable, value] of Object.entries(service.environment ?? {})) {
        if (variable !== 'BUS_PREFIX') expect(value, `${name} ${variable}`).not.toBe('');
      }
    }
  });

  it('runs NATS with JetStream and sets up the bucket with an expiry rule for uploads/', () => {
    expect(compose.services.nats?.image).toBe('nats:2.10-alpine');
    expect(compose.services.nats?.command).toContain('-js');
    expect(compose.services.postgres?.image).toBe('postgres:16-alpine');
    const setup = (compose.services['minio-setup']?.command ?? []).join('\n');
    expect(setup).toContain('mc mb --ignore-existing local/esign');
    expect(setup).toContain('"Prefix":"uploads/"');
    expect(setup).toContain('mc ilm import local/esign');
  });

  it('pins every image it pulls to a tag', () => {
    for (const [name, service] of services) {
      if (service.build) continue;
      expect(service.image, name).toMatch(/^[a-z0-9./-]+:[A-Za-z0-9._-]+$/);
      expect(service.image, name).not.toMatch(/:latest$/);
    }
  });

  it('keeps Jaeger optional and the tracing overlay limited to services that exist', async () => {
    expect(compose.services.jaeger?.profiles).toEqual(['tracing']);
    const overlay = await readCompose('compose/tracing.yaml');
    for (const [name, service] of Object.entries(overlay.services)) {
      expect(compose.services[name]?.build, name).toBeDefined();
      expect(service.environment).toEqual({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318' });
    }
    expect(Object.keys(overlay.services).sort()).toEqual(
      appServices()
        .map(([name]) => name)
        .sort(),
    );
  });

  it('takes a real signing key only from the environment, refusing to start without one', async () => {
    const overlay = await readCompose('compose/signing-key.yaml');
    expect(Object.keys(overlay.services)).toEqual(['pdf-signer']);
    const env = overlay.services['pdf-signer']?.environment ?? {};
    expect(env.SIGNING_KEY_PEM).toMatch(/^\$\{SIGNING_KEY_PEM:\?.+\}$/);
    expect(env.SIGNING_CERT_PEM).toMatch(/^\$\{SIGNING_CERT_PEM:\?.+\}$/);
  });

  it('gives every service, the gateway too, its operations port HEALTH_PORT 9090 (/metrics)', () => {
    for (const [name, service] of appServices()) expect(service.environment?.HEALTH_PORT, name).toBe('9090');
  });
});

interface ScrapeConfig {
  rule_files: string[];
  scrape_configs: { job_name: string; static_configs: { targets: string[] }[] }[];
}

/** The host side of a `host:container[:ro]` bind mount, resolved from deploy/, by its container path. */
const mountOf = (service: ComposeService | undefined, containerPath: string) => {
  const volume = (service?.volumes ?? []).find((v) => v.split(':')[1] === containerPath);
  if (!volume) throw new Error(`nothing is mounted at ${containerPath}`);
  const [host = '', , mode] = volume.split(':');
  return { host: resolve(repoRoot, 'deploy', host), mode };
};

describe('metrics in compose (profile metrics)', () => {
  it('runs Prometheus and Grafana beside Jaeger, only when asked for', () => {
    expect(compose.services.prometheus?.profiles).toEqual(['metrics']);
    expect(compose.services.grafana?.profiles).toEqual(['metrics']);
    expect(compose.services.prometheus?.image).toMatch(/^prom\/prometheus:v/);
    expect(compose.services.grafana?.image).toMatch(/^grafana\/grafana:/);
    expect(compose.services.grafana?.depends_on).toEqual({ prometheus: { condition: 'service_healthy' } });
  });

  it("evaluates the chart's own alert file and shows the chart's own dashboard: mounted, not copied", () => {
    const prometheus = compose.services.prometheus;
    expect(mountOf(prometheus, '/etc/prometheus/alerts.yaml')).toEqual({
      host: join(chartDir, 'files/alerts.yaml'),
      mode: 'ro',
    });
    const grafana = compose.services.grafana;
    expect(mountOf(grafana, '/etc/grafana/dashboards/esign.json')).toEqual({
      host: join(chartDir, 'files/grafana-dashboard.json'),
      mode: 'ro',
    });
    expect(mountOf(grafana, '/etc/grafana/provisioning').host).toBe(
      join(repoRoot, 'deploy/monitoring/grafana/provisioning'),
    );
  });

  it('scrapes every service on its operations port under the job name the alerts select (esign-<service>)', async () => {
    const configPath = mountOf(compose.services.prometheus, '/etc/prometheus/prometheus.yml').host;
    const config = parse(await readFile(configPath, 'utf8')) as ScrapeConfig;
    expect(config.rule_files).toEqual(['/etc/prometheus/alerts.yaml']);
    const jobs = new Map(
      config.scrape_configs.map((c) => [c.job_name, c.static_configs.flatMap((s) => s.targets)]),
    );
    for (const [name, service] of appServices())
      expect(jobs.get(`esign-${name}`), name).toEqual([`${name}:${service.environment?.HEALTH_PORT}`]);

    // promtool checks the configuration and, through it, the rules (at their real path here).
    const dir = await mkdtemp(join(tmpdir(), 'esign-prometheus-'));
    try {
      const file = join(dir, 'prometheus.yml');
      await writeFile(file, stringify({ ...config, rule_files: [join(chartDir, 'files/alerts.yaml')] }));
      const result = await runCommand('promtool', ['check', 'config', file], { cwd: dir });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout).toMatch(/SUCCESS: \d+ rules found/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("provisions Prometheus as Grafana's default data source and loads dashboards from where the file is mounted", async () => {
    const provisioning = join(repoRoot, 'deploy/monitoring/grafana/provisioning');
    const { datasources } = parse(
      await readFile(join(provisioning, 'datasources/prometheus.yaml'), 'utf8'),
    ) as {
      datasources: { type: string; url: string; isDefault: boolean }[];
    };
    expect(datasources).toEqual([
      expect.objectContaining({ type: 'prometheus', url: 'http://prometheus:9090', isDefault: true }),
    ]);
    const { providers } = parse(await readFile(join(provisioning, 'dashboards/esign.yaml'), 'utf8')) as {
      providers: { type: string; options: { path: string } }[];
    };
    expect(providers).toEqual([
      expect.objectContaining({ type: 'file', options: { path: '/etc/grafana/dashboards' } }),
    ]);
  });
});
