import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { findHelm } from './find-helm';

/** What one helm command printed and how it ended. */
export interface HelmResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run helm with `args`; resolves with the exit code instead of throwing on failure. */
export const runHelm = async (args: readonly string[]): Promise<HelmResult> => {
  const helm = await findHelm();
  // Helm keeps caches and repository lists under these: a home beside the binary leaves the user's alone.
  const helmHome = join(dirname(helm), 'home');
  return new Promise((resolve, reject) => {
    execFile(
      helm,
      [...args],
      {
        maxBuffer: 64 * 1024 * 1024,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: helmHome,
          HELM_CACHE_HOME: join(helmHome, 'cache'),
          HELM_CONFIG_HOME: join(helmHome, 'config'),
          HELM_DATA_HOME: join(helmHome, 'data'),
        },
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== 'number')
          return reject(new Error(error.message, { cause: error }));
        resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
      },
    );
  });
};
