import { Worker } from 'node:worker_threads';
import { ServiceError } from '@esign/contracts';
import type { TPdfVerifyReply } from '@esign/contracts';
import type { Logger } from '@esign/telemetry';
import type { VerifyPdfOptions } from '../domain/verify/verify-pdf';
import { transferableBytes } from '../workers/sign-job';
import { workerResourceLimits } from '../workers/worker-limits';
import { workerSource } from '../workers/worker-source';
import type { JobOutcome, SignerMetrics } from '../workers/signer-metrics';

export type VerifyWorkerSetup = VerifyPdfOptions;
export interface VerifyJob {
  readonly id: number;
  readonly bytes: ArrayBuffer;
}
export type VerifyReply =
  | { readonly id: number; readonly ok: true; readonly report: TPdfVerifyReply }
  | { readonly id: number; readonly ok: false; readonly message: string };

/** Checks PDFs' signatures on its own worker thread, one file at a time. */
export interface Verifier {
  verify(bytes: Buffer): Promise<TPdfVerifyReply>;
  close(): Promise<void>;
}

const WORKER_URL = new URL('./verify-worker.ts', import.meta.url);

/**
 * One verification worker (started on first use), with a budget per file: a file still being checked
 * after `budgetMs` ends the worker (answering `invalid_argument`) and the next file gets a new one.
 * Files wait in arrival order. The work is linear in the file (hashing its signed ranges once per
 * signature, at most 50 signatures, at most 1 MB of appended bytes described per signature).
 */
export const startVerifier = (options: {
  budgetMs: number;
  heapMb: number;
  /** Its young generation (MB; absent: WORKER_YOUNG_GENERATION_MB; 0: V8 sizes it); see workerResourceLimits. */
  youngMb?: number;
  setup: VerifyWorkerSetup;
  logger: Logger;
  /** Where each verification's time and outcome is recorded (job `verify`; absent: nowhere). */
  metrics?: SignerMetrics;
}): Verifier => {
  const { metrics } = options;
  const { source, eval: evalSource } = workerSource(WORKER_URL);
  let worker: Worker | undefined;
  let ready: Promise<Worker> | undefined;
  let nextId = 1;
  let chain: Promise<unknown> = Promise.resolve();
  let closing = false;

  const start = (): Promise<Worker> => {
    ready ??= new Promise<Worker>((resolve, reject) => {
      const w = new Worker(source, {
        eval: evalSource,
        workerData: options.setup,
        execArgv: [],
        resourceLimits: workerResourceLimits(options.heapMb, options.youngMb),
      });
      w.once('message', () => resolve(w));
      w.once('error', reject);
      w.once('exit', () => {
        if (worker === w) worker = undefined;
        ready = undefined;
        reject(new Error('verification worker exited during start-up'));
      });
      worker = w;
    });
    return ready;
  };

  const run = async (bytes: Buffer): Promise<TPdfVerifyReply> => {
    if (closing) throw new ServiceError('unavailable', 'the verifier is shutting down');
    const w = await start();
    const id = nextId++;
    const copy = transferableBytes(bytes);
    const started = performance.now();
    const ended = (outcome: JobOutcome) =>
      metrics?.ended('verify', outcome, (performance.now() - started) / 1000);
    return new Promise<TPdfVerifyReply>((resolve, reject) => {
      const timer = setTimeout(() => {
        cleanup();
        options.logger.warn('verification over its budget: worker ended', { budgetMs: options.budgetMs });
        void w.terminate();
        ended('over_budget');
        metrics?.overBudget('verify', 'time');
        reject(
          new ServiceError(
            'invalid_argument',
            `file: the document is too complex to verify within ${options.budgetMs} ms`,
            'file',
          ),
        );
      }, options.budgetMs);
      const onMessage = (reply: VerifyReply) => {
        if (reply.id !== id) return;
        cleanup();
        ended(reply.ok ? 'ok' : 'error');
        if (reply.ok) resolve(reply.report);
        else reject(new Error(`verification failed: ${reply.message}`));
      };
      const onExit = (code: number) => {
        cleanup();
        ended('over_budget');
        metrics?.overBudget('verify', 'memory');
        reject(
          new ServiceError(
            'invalid_argument',
            `file: the document needs more memory to verify than the verifier allows (exit ${code})`,
            'file',
          ),
        );
      };
      const cleanup = () => {
        clearTimeout(timer);
        w.off('message', onMessage);
        w.off('exit', onExit);
      };
      w.on('message', onMessage);
      w.once('exit', onExit);
      const job: VerifyJob = { id, bytes: copy };
      w.postMessage(job, [copy]);
    });
  };

  return {
    verify(bytes) {
      const result = chain.then(() => run(bytes));
      chain = result.catch(() => undefined);
      return result;
    },
    async close() {
      closing = true;
      await worker?.terminate();
    },
  };
};
