import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './support/paths';

let dockerfile: string;
let stages: string[];

beforeAll(async () => {
  dockerfile = await readFile(join(repoRoot, 'deploy/docker/Dockerfile'), 'utf8');
  // Instructions continue over lines ending in a backslash; comments are not instructions.
  const instructions = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .filter((line) => line.trim() && !line.trim().startsWith('#'));
  stages = instructions
    .join('\n')
    .split(/^(?=FROM )/m)
    .filter((stage) => stage.startsWith('FROM '));
});

const runtimeStage = () => stages.at(-1) ?? '';

describe('deploy/docker/Dockerfile', () => {
  it('builds in several stages on node:22-bookworm-slim', () => {
    expect(dockerfile).toMatch(/^ARG NODE_IMAGE=node:22-bookworm-slim$/m);
    expect(stages.length).toBeGreaterThanOrEqual(3);
    for (const stage of stages) expect(stage).toMatch(/^FROM (\$\{NODE_IMAGE\}|pnpm|deps) AS [a-z]+/);
  });

  it('installs the pnpm version the workspace declares, from the lockfile only', async () => {
    const { packageManager } = JSON.parse(await readFile(join(repoRoot, 'package.json'), 'utf8')) as {
      packageManager: string;
    };
    expect(dockerfile).toContain(`npm install --global ${packageManager}`);
    expect(dockerfile).toMatch(/pnpm install --frozen-lockfile/);
  });

  it('does not set NODE_ENV=production before installing (pnpm would then skip tsx)', () => {
    const installStage = stages.find((stage) => stage.includes('pnpm install')) ?? '';
    expect(installStage).not.toBe('');
    expect(stages.slice(0, stages.indexOf(installStage) + 1).join('\n')).not.toMatch(/NODE_ENV=production/);
    expect(runtimeStage()).toMatch(/NODE_ENV=production/);
  });

  it('runs as a numeric non-root user through the entrypoint that picks the service', () => {
    const runtime = runtimeStage();
    expect(runtime).toMatch(/^USER 1000:1000$/m);
    expect(runtime).toContain('ENTRYPOINT ["sh", "/app/deploy/docker/entrypoint.sh"]');
    expect(runtime).toContain('HEALTHCHECK');
    // Package managers have no business in the running image.
    expect(runtime).toMatch(/rm -rf .*\/usr\/local\/bin\/npm/);
  });

  it('installs qpdf in the running image, which the pdf-signer repairs and decrypts PDFs with', () => {
    expect(runtimeStage()).toMatch(/apt-get install -y --no-install-recommends [^&]*\bqpdf\b/);
    // The package lists are not left in the image.
    expect(runtimeStage()).toMatch(/rm -rf \/var\/lib\/apt\/lists/);
  });

  it('bakes no secret into the image', () => {
    for (const line of dockerfile.split('\n').filter((l) => /^(ENV|ARG) /.test(l))) {
      expect(line).not.toMatch(/SECRET|PASSWORD|TOKEN|PRIVATE|_PEM|ACCESS_KEY|DATABASE_URL/i);
    }
  });

  it('keeps modules, VCS data, env files and keys out of the build context', async () => {
    const ignore = (await readFile(join(repoRoot, 'deploy/docker/Dockerfile.dockerignore'), 'utf8'))
      .split('\n')
      .map((line) => line.trim());
    expect(ignore).toEqual(
      expect.arrayContaining([
        '**/node_modules',
        '.git',
        '**/.env',
        '**/.env.*',
        '**/*.pem',
        '**/*.key',
        '.tools',
      ]),
    );
  });
});
