import { spawnSync } from 'node:child_process';

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
