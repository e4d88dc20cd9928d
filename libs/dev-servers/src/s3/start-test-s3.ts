import { statfsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3Server } from './server';

export interface TestS3 {
  readonly endpoint: string;
  readonly accessKey: string;
  readonly secretKey: string;
  readonly region: string;
  stop(): Promise<void>;
}

/**
 * Where temporary S3 folders go: RAM-backed /dev/shm when it has room, since creating and renaming a
 * file there costs a fraction of what it does on a disk filesystem (every PUT does both).
 */
const scratchRoot = (): string => {
  try {
    const fs = statfsSync('/dev/shm');
    if (fs.bavail * fs.bsize >= 4 * 1024 ** 3) return '/dev/shm';
  } catch {
    // No /dev/shm (macOS): the disk will do.
  }
  return tmpdir();
};

/**
 * The embedded S3-protocol server (./server) on a loopback port (a free one by default), storing
 * under `directory` (kept, and re-read at the next start) or else under a temporary folder removed by
 * `stop`. It accepts any credentials; these are the ones handed to clients.
 */
export const startTestS3 = async (options: { port?: number; directory?: string } = {}): Promise<TestS3> => {
  const directory = options.directory ?? (await mkdtemp(join(scratchRoot(), 'esign-s3-')));
  const server = await startS3Server({ directory, port: options.port ?? 0, region: 'us-east-1' });
  let stopped: Promise<void> | undefined;
  return {
    endpoint: server.endpoint,
    accessKey: 'S3RVER',
    secretKey: 'S3RVER',
    region: server.region,
    /** Stop serving (a test may take storage down on purpose; stopping again is a no-op). */
    stop() {
      stopped ??= (async () => {
        await server.stop();
        if (!options.directory) await rm(directory, { recursive: true, force: true });
      })();
      return stopped;
    },
  };
};
