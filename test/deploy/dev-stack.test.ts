import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { randomUUID } from 'node:crypto';
import { chmod, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus } from '@esign/bus';
import { SigningCreate } from '@esign/contracts';
import { freePort, REPO_ROOT } from '@esign/stack';
import { createLogger } from '@esign/telemetry';
import { makePdf, testNatsUrl, uniqueBusPrefix } from '@esign/testing';

/**
 * `pnpm dev` as a developer runs it on a laptop without Docker: NATS from NATS_URL, Postgres and S3
 * embedded, then the operator CLI against it, a signature through HTTP, and Ctrl-C.
 */
let dataDir: string;
let dev: ChildProcess | undefined;
let output = '';
let env: NodeJS.ProcessEnv;
let port: number;

const run = (args: string[], extraEnv: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, ['--import', 'tsx', ...args], {
    cwd: REPO_ROOT,
    env: { ...env, ...extraEnv },
    encoding: 'utf8',
  });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'esign-dev-'));
  // As root, embedded Postgres runs as the `postgres` user, who must be able to reach its folder.
  await chmod(dataDir, 0o755);
  port = await freePort();
  env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NATS_URL: await testNatsUrl(),
    BUS_PREFIX: uniqueBusPrefix('dev'),
    PORT: String(port),
    ESIGN_DATA_DIR: dataDir,
    ESIGN_PG_PORT: String(await freePort()),
    ESIGN_S3_PORT: String(await freePort()),
  };
  dev = spawn(process.execPath, ['--import', 'tsx', 'deploy/dev/main.ts'], {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  dev.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  dev.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const deadline = Date.now() + 120_000;
  while (!output.includes('E-signature service is up')) {
    if (Date.now() > deadline || dev.exitCode !== null)
      throw new Error(`pnpm dev did not come up:\n${output}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}, 180_000);

afterAll(async () => {
  if (dev && dev.exitCode === null) {
    dev.kill('SIGKILL');
    await once(dev, 'exit');
  }
  await rm(dataDir, { recursive: true, force: true });
});

describe('pnpm dev', () => {
  it('runs the stack with embedded Postgres and S3; the CLI makes a key that signs, and revokes it', async () => {
    expect(output).toMatch(/started embedded Postgres/);
    expect(output).toMatch(/started embedded S3/);
    // The public sandbox token is printed, and it works.
    const token = /sandbox token:\s+(svc_sandbox_\w+)/.exec(output)?.[1] ?? '';
    const sandbox = await fetch(`http://127.0.0.1:${port}/api/v1/sandbox/sign`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ document_url: 'https://example.com/dev.pdf' }),
    });
    expect(sandbox.status).toBe(200);
    const created = run([
      'services/key/src/cli.ts',
      'keys',
      'create',
      '--email',
      'dev@example.com',
      '--plan',
      'business',
    ]);
    expect(created.status).toBe(0);
    const key = created.stdout.trim().split('\n').pop() ?? '';
    expect(key).toMatch(/^svc_live_[A-Za-z0-9]{32}$/);

    const form = new FormData();
    form.append('signerName', 'Dev');
    form.append('signerEmail', 'dev@example.com');
    form.append('mode', 'type');
    form.append('typedName', 'Dev');
    form.append('file', new Blob([new Uint8Array(await makePdf({ pages: 1 }))]), 'dev.pdf');
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/sign`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}` },
      body: form,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-audit-id')).toMatch(/^ESG-/);
    // Timestamped by the local TSA pnpm dev starts (openssl ts), as the audit log shows.
    expect(output).toContain('started local time-stamping authority');
    const record = await fetch(
      `http://127.0.0.1:${port}/api/v1/documents/${res.headers.get('x-audit-id') ?? ''}`,
      { headers: { Authorization: `Bearer ${key}` } },
    );
    const { auditLog } = (await record.json()) as {
      auditLog: { event: string; details?: Record<string, unknown> }[];
    };
    const sealed = auditLog.find((e) => e.event === 'document.sealed');
    expect(String(sealed?.details?.timestampAuthority)).toContain('CN=esign test TSA');

    const revoked = run(['services/key/src/cli.ts', 'keys', 'revoke', key]);
    expect(revoked.status).toBe(0);
    await new Promise((r) => setTimeout(r, 100));
    const after = await fetch(`http://127.0.0.1:${port}/api/v1/documents`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(after.status).toBe(401);
  });

  it('runs the mailer against a local SMTP catcher: every email an .eml file, signing links printed', async () => {
    const bus = await connectBus({
      url: env.NATS_URL ?? '',
      name: 'dev-stack-test',
      prefix: env.BUS_PREFIX ?? '',
      logger: createLogger({ service: 'test', level: 'error' }),
      timeoutMs: 5000,
    });
    try {
      // A signing request made in document-store (as POST /api/v1/send will): its outbox publishes
      // events.signing.requested, the mailer attaches a link (only its hash goes back) and sends it.
      const accountId = randomUUID();
      await bus.request(SigningCreate, {
        accountId,
        senderEmail: 'dev@example.com',
        recipientEmail: 'signer@example.com',
        recipientName: 'Signer',
        fileName: 'dev.pdf',
        objectKey: `pending/${accountId}/${randomUUID()}.pdf`,
        positions: [{ x: 10, y: 80, page: 0, width: 25 }],
      });
      const deadline = Date.now() + 30_000;
      while (!/signing link\s+url=http:\/\/localhost:\d+\/s\/[A-Za-z0-9_-]{43}/.test(output)) {
        if (Date.now() > deadline) throw new Error(`no signing link printed:\n${output}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const mailDir = join(dataDir, 'mail');
      const files = (await readdir(mailDir)).filter((f) => f.endsWith('.eml'));
      expect(files).toHaveLength(1);
      const eml = await readFile(join(mailDir, files[0] ?? ''), 'utf8');
      expect(eml).toMatch(/^Subject: Please sign: dev\.pdf$/m);
      expect(eml).toMatch(/^To: Signer <signer@example\.com>$/m);
    } finally {
      await bus.drain();
    }
  });

  it('writes a Prometheus configuration for its processes, prints how to run it, and Prometheus scrapes them all as esign-<service>', async () => {
    const configFile = join(dataDir, 'prometheus', 'prometheus.yml');
    expect(output).toContain(`prometheus --config.file=${configFile}`);
    const groups = JSON.parse(await readFile(join(dataDir, 'prometheus', 'targets.json'), 'utf8')) as {
      targets: string[];
      labels: { job: string };
    }[];
    const jobs = groups.map((g) => g.labels.job).sort();
    expect(jobs).toEqual(
      ['document-store', 'gateway', 'key', 'mailer', 'pdf-signer', 'template', 'webhook'].map(
        (s) => `esign-${s}`,
      ),
    );
    for (const { targets, labels } of groups) {
      for (const target of targets) {
        const res = await fetch(`http://${target}/metrics`);
        expect(res.status, `${labels.job} ${target}`).toBe(200);
        expect(await res.text(), `${labels.job} ${target}`).toMatch(/^# TYPE /m);
      }
    }
    // The configuration, its file_sd file and the chart's alerts it points at all pass promtool.
    const check = spawnSync('promtool', ['check', 'config', configFile], { encoding: 'utf8' });
    expect(check.status, check.stdout + check.stderr).toBe(0);

    // Debian's Prometheus on it: every process is up under the job name the alerts select.
    const promPort = await freePort();
    const tsdb = join(dataDir, 'prometheus-test-data');
    const prometheus = spawn(
      'prometheus',
      [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${tsdb}`,
        `--web.listen-address=127.0.0.1:${promPort}`,
      ],
      { stdio: 'ignore' },
    );
    try {
      const deadline = Date.now() + 60_000;
      let up: { metric: { job: string }; value: [number, string] }[] = [];
      while (Date.now() < deadline) {
        try {
          const res = await fetch(`http://127.0.0.1:${promPort}/api/v1/query?query=up`);
          up = ((await res.json()) as { data: { result: typeof up } }).data.result;
          if (up.length === groups.flatMap((g) => g.targets).length && up.every((r) => r.value[1] === '1'))
            break;
        } catch {
          // Not listening yet.
        }
        await new Promise((r) => setTimeout(r, 500));
      }
      expect(
        up
          .filter((r) => r.value[1] === '1')
          .map((r) => r.metric.job)
          .sort(),
      ).toEqual(jobs);
    } finally {
      prometheus.kill('SIGTERM');
      if (prometheus.exitCode === null) await once(prometheus, 'exit');
    }
  });

  it('stops every service and Postgres cleanly on Ctrl-C', async () => {
    const child = dev;
    if (!child) throw new Error('not started');
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    expect(output).toContain('stopped.');
    const leftovers = spawnSync('pgrep', ['-f', dataDir], { encoding: 'utf8' }).stdout.trim();
    expect(leftovers).toBe('');
  });

  it('says how to install NATS when it is missing, and exits 1', () => {
    const result = run(['deploy/dev/main.ts'], {
      PATH: '/usr/bin:/bin',
      NATS_URL: `nats://127.0.0.1:${1}`,
      ESIGN_DATA_DIR: join(dataDir, 'other'),
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/nats-server was not found on PATH/);
    expect(result.stderr).toMatch(/apt-get install nats-server/);
  });
});
