import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './services';

/** A tool the stack runs without but loses a feature; `hint` says what is lost and how to install it. */
export interface MissingTool {
  readonly tool: string;
  readonly hint: string;
}

const OPTIONAL_TOOLS = [
  {
    tool: 'qpdf',
    hint: `qpdf was not found on PATH: the pdf-signer will refuse encrypted PDFs that open without a
password and damaged PDFs that it would otherwise repair (everything else works). Install it:
  Debian/Ubuntu: sudo apt-get install qpdf
  macOS:         brew install qpdf`,
  },
] as const;

/** Optional tools that cannot be run with this PATH (default: the current one). */
export const findMissingTools = (path = process.env.PATH ?? ''): MissingTool[] =>
  OPTIONAL_TOOLS.filter(
    ({ tool }) => spawnSync(tool, ['--version'], { env: { PATH: path }, stdio: 'ignore' }).status !== 0,
  );

/**
 * Builds the gateway's web pages (`pnpm build:web`: vite, into services/gateway/dist/web/) before a
 * stack starts, so `pnpm dev` and the tests serve pages built from the current source. Throws with
 * vite's output when the build fails.
 */
export const buildWebPages = (): void => {
  const webDir = join(REPO_ROOT, 'services/gateway/web');
  const pages = readdirSync(webDir, { withFileTypes: true }).filter(
    (entry) => entry.isDirectory() && existsSync(join(webDir, entry.name, 'index.html')),
  );
  if (pages.length === 0) return;
  const result = spawnSync('pnpm', ['--silent', 'build:web'], { cwd: REPO_ROOT, encoding: 'utf8' });
  if (result.status !== 0) {
    throw new Error(`pnpm build:web failed:\n${result.stdout}\n${result.stderr}`);
  }
};
