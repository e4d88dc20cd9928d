import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

/** The repository root, where `pnpm cli` runs. */
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run the operator CLI the way `pnpm cli` does, with its own environment. */
export const runCliProcess = (args: string[], env: Record<string, string>): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/key/src/cli.ts', ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });

/** Poll until `check` returns a value, or fail after `timeoutMs`. */
export const waitFor = async <T>(check: () => T | undefined, timeoutMs = 2000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

/**
 * A pg pool's `end()` resolves before its sockets have closed; dropping the database `with (force)`
 * at that moment kills those backends and their clients raise an unhandled FATAL. Wait them out.
 */
export const waitForOtherConnectionsToClose = async (url: string, timeoutMs = 5000): Promise<void> => {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const { rows } = await db.query<{ n: string }>(
        'select count(*) as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      if (rows[0]?.n === '0') return;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    await db.end();
  }
};
