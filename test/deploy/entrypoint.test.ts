import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from './support/paths';

const entrypoint = join(repoRoot, 'deploy/docker/entrypoint.sh');
let appDir: string;

// A stand-in service: TypeScript (so tsx must run it), reports its pid and drains on SIGTERM.
const fakeMain = `
const name: string = 'fake';
process.on('SIGTERM', () => {
  console.log(\`drained \${name}\`);
  process.exit(0);
});
console.log(\`started \${name} pid=\${process.pid} args=\${process.argv.slice(2).join(',')}\`);
setInterval(() => undefined, 1000);
`;

beforeAll(async () => {
  appDir = await mkdtemp(join(tmpdir(), 'esign-entrypoint-'));
  await mkdir(join(appDir, 'services/fake/src'), { recursive: true });
  await writeFile(join(appDir, 'services/fake/src/main.ts'), fakeMain);
  // The entrypoint loads instrument.ts (tracing) with --import before main.ts, as every service has one.
  await writeFile(join(appDir, 'services/fake/src/instrument.ts'), "console.log('instrumented fake');\n");
});

afterAll(async () => {
  await rm(appDir, { recursive: true, force: true });
});

const start = (args: string[]) =>
  spawn('sh', [entrypoint, ...args], {
    cwd: repoRoot,
    env: { ...process.env, ESIGN_APP_DIR: appDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

const waitFor = (stream: NodeJS.ReadableStream, pattern: RegExp): Promise<string> =>
  new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(() => reject(new Error(`no ${String(pattern)} in: ${seen}`)), 30_000);
    stream.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = pattern.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    });
  });

describe('deploy/docker/entrypoint.sh', () => {
  it('runs services/<name>/src/main.ts through tsx as the process itself, so SIGTERM reaches it', async () => {
    const child = start(['fake', '--flag']);
    const started = await waitFor(child.stdout, /started fake pid=(\d+) args=\S*/);
    // exec replaced the shell: the service has the pid the container runtime signals.
    expect(started).toBe(`started fake pid=${child.pid} args=--flag`);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const drained = waitFor(child.stdout, /drained fake/);
    child.kill('SIGTERM');
    expect(await drained).toBe('drained fake');
    expect(await exited).toBe(0);
  });

  it('runs any other command as given', async () => {
    const child = start(['node', '-e', 'console.log("as given")']);
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(await waitFor(child.stdout, /as given/)).toBe('as given');
    expect(await exited).toBe(0);
  });
});
