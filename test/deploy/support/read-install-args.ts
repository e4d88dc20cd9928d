import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from './paths';

/**
 * The arguments of the Dockerfile's `pnpm install` (after `install`), so that a test can install
 * the very dependency set the image gets. Understands single quotes and line continuations.
 */
export const readInstallArgs = async (): Promise<string[]> => {
  const dockerfile = (await readFile(join(repoRoot, 'deploy/docker/Dockerfile'), 'utf8')).replace(
    /\\\n/g,
    ' ',
  );
  const line = dockerfile.split('\n').find((l) => l.includes('pnpm install --frozen-lockfile'));
  if (!line) throw new Error('the Dockerfile has no `pnpm install --frozen-lockfile`');
  const command = line.slice(line.indexOf('pnpm install') + 'pnpm install'.length).split(/&&|;/)[0] ?? '';
  return [...command.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
};
