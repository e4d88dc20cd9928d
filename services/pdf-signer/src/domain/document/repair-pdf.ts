import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** How long qpdf may take on one upload: real files take milliseconds, a pathological one is cut off. */
export const REPAIR_TIMEOUT_MS = 5_000;

/** Largest repaired file accepted: uploads are at most 25 MB and qpdf keeps streams as they are. */
export const MAX_REPAIRED_BYTES = 64 * 1024 * 1024;

/** Address space qpdf may use (KiB, `ulimit -v`): parsing a hostile file cannot take the host's memory. */
const QPDF_MEMORY_KIB = 1024 * 1024;

/** Why a repair gave nothing to sign. */
export type RepairFailure =
  /** Opening the file needs a user password, which we do not have. */
  | 'password'
  /** qpdf could not make a PDF of it either. */
  | 'unreadable'
  /** qpdf did not finish within REPAIR_TIMEOUT_MS. */
  | 'timeout'
  /** The repaired file would be larger than MAX_REPAIRED_BYTES. */
  | 'too-large'
  /** qpdf is not installed. */
  | 'unavailable';

export type RepairResult =
  | {
      readonly ok: true;
      readonly bytes: Buffer;
      /** qpdf reported problems it worked around. */ readonly warnings: boolean;
    }
  | { readonly ok: false; readonly failure: RepairFailure };

/**
 * Rewrite a PDF that pdf-lib cannot use with qpdf (Apache-2.0, `apt-get install qpdf`): qpdf
 * reconstructs a damaged cross-reference table by scanning for objects, mends broken page trees and
 * stream lengths, and decrypts a file whose user password is empty (owner password only: RC4,
 * AES-128, AES-256). The output is unencrypted (the original's permission flags go with the
 * encryption), without object streams, streams kept as they were. Only the fallback path runs it:
 * the input goes to a private temporary file (qpdf needs to seek), the output comes back on stdout,
 * with a time limit, an output cap and a memory limit.
 */
export const repairPdf = async (
  bytes: Buffer,
  options: { timeoutMs?: number; maxBytes?: number } = {},
): Promise<RepairResult> => {
  const { timeoutMs = REPAIR_TIMEOUT_MS, maxBytes = MAX_REPAIRED_BYTES } = options;
  const dir = await mkdtemp(join(tmpdir(), 'esign-repair-'));
  try {
    const input = join(dir, 'upload.pdf');
    await writeFile(input, bytes, { mode: 0o600 });
    return await runQpdf(
      ['--decrypt', '--object-streams=disable', '--stream-data=preserve', input, '-'],
      timeoutMs,
      maxBytes,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
};

const runQpdf = (args: string[], timeoutMs: number, maxBytes: number): Promise<RepairResult> =>
  new Promise((resolve) => {
    // Through sh for `ulimit -v`; `exec` leaves qpdf as the only process. 127: qpdf is not on PATH.
    const child = spawn('sh', ['-c', `ulimit -v ${QPDF_MEMORY_KIB} && exec qpdf "$@"`, 'qpdf', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = '';
    let stopped: RepairFailure | undefined;
    const stop = (failure: RepairFailure) => {
      stopped ??= failure;
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => stop('timeout'), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) stop('too-large');
      else chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      // Enough to tell a wrong password from anything else; qpdf may warn at length.
      if (stderr.length < 64 * 1024) stderr += chunk.toString('utf8');
    });
    child.on('error', () => {
      clearTimeout(timer);
      resolve({ ok: false, failure: 'unavailable' });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (stopped) return resolve({ ok: false, failure: stopped });
      // 0: fine; 3: written, with warnings about what was mended; 2: errors, nothing usable.
      if ((code === 0 || code === 3) && size > 0) {
        return resolve({ ok: true, bytes: Buffer.concat(chunks, size), warnings: code === 3 });
      }
      if (code === 127) return resolve({ ok: false, failure: 'unavailable' });
      resolve({ ok: false, failure: /invalid password/i.test(stderr) ? 'password' : 'unreadable' });
    });
  });

/** Whether qpdf can be run (checked once at start-up, so that a missing tool is logged early). */
export const isQpdfAvailable = (): Promise<boolean> =>
  new Promise((resolve) => {
    const child = spawn('qpdf', ['--version'], { stdio: 'ignore' });
    child.on('error', () => resolve(false));
    child.on('close', (code) => resolve(code === 0));
  });
