import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository root, where `pnpm cli` runs. */
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));

export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Run the operator CLI the way `pnpm cli` does, with its own environment (and `stdin`, if given). */
export const runCliProcess = (
  args: string[],
  env: Record<string, string>,
  stdin?: string,
): Promise<CliResult> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'services/key/src/cli.ts', ...args], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end(stdin ?? '');
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
