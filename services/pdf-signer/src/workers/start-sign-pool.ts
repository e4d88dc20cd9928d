import { Worker } from 'node:worker_threads';
import { ServiceError } from '@esign/contracts';
import type { Logger } from '@esign/telemetry';
import type { SignHooks, SignInput, SignResult, Signer } from '../domain/assemble-signer';
import type { EnvelopeOperations, EnvelopeResult } from '../domain/envelope/envelope-operations';
import { generateDevelopmentMaterial, loadSigningIdentity } from '../domain/cms/load-signing-identity';
import type { SigningMaterial } from '../domain/cms/load-signing-identity';
import type { TimestampSettings } from '../domain/ltv/request-timestamp';
import type { RevocationSettings } from '../domain/ltv/revocation';
import { transferableBytes } from './sign-job';
import type {
  EnvelopeTask,
  Inspected,
  SignJobError,
  SignJobReply,
  SignJobSuccess,
  SignWorkerLog,
  SignWorkerObserved,
  SignWorkerReady,
  SignWorkerSetup,
  SignWorkerWaiting,
  WorkerJob,
} from './sign-job';
import type { JobOutcome, SignerMetrics } from './signer-metrics';
import { workerResourceLimits } from './worker-limits';
import type { SignWarmUp } from './warm-up-plan';
import { workerSource } from './worker-source';

/** How the pool of signing workers is sized and bounded. */
export interface SignPoolOptions {
  /** Worker threads. */
  readonly size: number;
  /**
   * Most jobs one worker holds at once (default 16). A worker computes one job at a time; it is handed
   * another only while every job it holds waits on the network (a TSA token), and then only a
   * document small enough to share its heap with them (see `startSignPool`).
   */
  readonly maxJobsPerWorker?: number;
  /** Longest a job may run on its worker (ms) before the worker is ended and replaced. */
  readonly jobBudgetMs: number;
  /** V8 heap limit of each worker (its old generation), in MB. */
  readonly workerHeapMb: number;
  /** V8 young generation of each worker, in MB (absent: WORKER_YOUNG_GENERATION_MB; 0: V8 sizes it). */
  readonly workerYoungMb?: number;
  /**
   * How long a job waits for the warmest worker (the one that has signed most) while it is busy
   * with a job of its own that began less than this many ms ago, before a colder idle worker takes
   * it (ms; 0: any idle worker at once). Default 50.
   */
  readonly spillMs?: number;
  /** PEM key and certificate; without them one development certificate is made up for every worker. */
  readonly signing?: SigningMaterial;
  /** The TSAs every signature is timestamped by; without them, signatures carry no timestamp. */
  readonly timestamps?: TimestampSettings;
  /** Revocation data of the signing chain and the TSA's certificates (each worker keeps its own cache). */
  readonly revocation?: RevocationSettings;
  readonly logger: Logger;
  /** Where jobs, queue waits and the workers' TSA and OCSP/CRL requests are recorded (absent: nowhere). */
  readonly metrics?: SignerMetrics;
  /**
   * What each worker signs for itself before it takes jobs, at start-up and when it replaces one
   * that ended (absent: nothing): offline (no TSA) and stored nowhere.
   */
  readonly warmUp?: SignWarmUp;
}

/**
 * A `Signer` whose work runs on worker threads; the caller's thread only moves bytes. `sign` moves
 * `input.bytes` to a worker: the caller's Buffer is empty (detached) afterwards when it owned its
 * whole ArrayBuffer.
 */
export interface SignPool extends Signer {
  /**
   * Read a PDF as signing would (the same loader and repairs) on a signing worker, under the same
   * queue, budget and heap limit as a signing, and answer its page count. Moves `bytes` as `sign` does.
   */
  inspect(bytes: Buffer): Promise<Inspected>;
  /** Workers ready to sign now (0 while all are being replaced). */
  readyWorkers(): number;
  /** Jobs each running worker has been handed so far, by worker (for tests and diagnostics). */
  jobsPerWorker(): number[];
  /** End every worker. Call once no request is in flight (after the bus has drained). */
  close(): Promise<void>;
}

interface PendingJob {
  readonly job: WorkerJob;
  readonly transfer: ArrayBuffer;
  readonly resolve: (reply: SignJobSuccess) => void;
  readonly reject: (err: unknown) => void;
  /** When it was queued (performance.now()). */
  readonly queuedAt: number;
  /** Size of its document (the transferred buffer is detached once sent). */
  readonly bytes: number;
  /** When a worker took it (performance.now()). */
  startedAt?: number;
  timer?: NodeJS.Timeout;
}

interface Slot {
  readonly worker: Worker;
  readonly id: number;
  ready: boolean;
  /** When it last became idle (a counter): of two equally warm workers, the one idle last goes first. */
  idleSince: number;
  /** Jobs handed to it: the more, the warmer (its code compiled by V8, its heap and arena reusable). */
  jobs: number;
  /** Jobs on it now, by job id, in the order they were handed. */
  readonly running: Map<number, PendingJob>;
  /** Which of them it last reported waiting on the network (`SignWorkerWaiting`). */
  waiting: ReadonlySet<number>;
  /** Bytes of the documents on it now. */
  bytes: number;
  error?: Error;
}

const WORKER_URL = new URL('./sign-worker.ts', import.meta.url);

const seconds = (ms: number) => `${Math.round(ms / 100) / 10}`;

const errorFrom = (error: SignJobError): Error => {
  if (error.code) return new ServiceError(error.code, error.message, error.field);
  const err = new Error(error.message);
  err.name = error.name;
  if (error.stack) err.stack = error.stack;
  return err;
};

/** The document's fault (a refusal the caller can act on), not the service's or a dependency's. */
const outcomeOf = (error: SignJobError): JobOutcome =>
  error.code === undefined || error.code === 'unavailable' || error.code === 'internal'
    ? 'error'
    : 'rejected';

const jobName = (job: WorkerJob) => ('inspect' in job ? 'inspect' : 'sign');

/** The service's own warm-up signings are not the service's work: kept out of its metrics. */
const isCounted = (job: WorkerJob) => !('offline' in job && job.offline === true);

/** Seconds a job has been on its worker. */
const onWorkerSeconds = (pending: PendingJob) => (performance.now() - (pending.startedAt ?? 0)) / 1000;

const isOutOfMemory = (err: Error | undefined) =>
  err !== undefined && 'code' in err && err.code === 'ERR_WORKER_OUT_OF_MEMORY';

/** Jobs on a slot that it has not reported waiting on the network: computing (or about to). */
const computingJobs = (slot: Slot): PendingJob[] =>
  [...slot.running.values()].filter((p) => !slot.waiting.has(p.job.id));

/** Answered to the other jobs of a worker ended for one job's sake: not their fault, retry. */
const restarted = (why: string) =>
  new ServiceError('unavailable', `the signing worker was restarted (${why}); retry`);

/**
 * Start `size` signing workers (node:worker_threads) once, at service start-up: each loads the
 * fonts, key and certificate once and computes one document at a time, so that no document, however
 * expensive, holds the thread that serves NATS and storage, or another signing. Jobs wait in arrival
 * order for a free worker: one with no job, or one whose jobs all wait on the network for a TSA
 * token (the worker reports it), which is handed another small document, up to `maxJobsPerWorker`:
 * a signing waiting for its token holds no worker, so a TSA's round trip costs latency, not
 * throughput. A job still running `jobBudgetMs` after it reached its worker ends its worker
 * (`terminate` stops JavaScript wherever it is) and answers `invalid_argument` on `file` ("too
 * complex to sign within N s"), unless it is waiting on the network while another job on the same
 * worker computes (that one is ended at its own budget instead); the other jobs of an ended worker
 * answer `unavailable` (retry). A worker that runs out of its heap (`workerHeapMb`) with one job
 * answers `invalid_argument` on `file` too (with several, all answer `unavailable`); any other death
 * of a worker answers `internal`. Every ended worker is replaced at once. Bytes cross between threads
 * as transferred ArrayBuffers, not copies.
 */
export const startSignPool = async (options: SignPoolOptions): Promise<SignPool> => {
  const { size, jobBudgetMs, workerHeapMb, logger, metrics } = options;
  const spillMs = options.spillMs ?? 50;
  const maxJobsPerWorker = Math.max(1, options.maxJobsPerWorker ?? 16);
  // Documents that share a worker while the others wait for their tokens: together at most an eighth
  // of its heap limit (a signing's peak is ~2-3x its file, and waiting jobs keep their parsed
  // document and signed file). A job alone on a worker may be as large as MAX_FILE_BYTES.
  const shareBytes = (workerHeapMb * 1024 * 1024) / 8;
  // One identity for every worker: a development certificate is made up here, once.
  const development = options.signing === undefined;
  const signing = options.signing ?? generateDevelopmentMaterial();
  const identity = loadSigningIdentity(signing, (message) => logger.warn(message), development);
  const [leaf] = identity.certificates;
  if (leaf) metrics?.signingCertificate(leaf);
  if (development) {
    logger.warn(
      'No SIGNING_KEY_PEM/SIGNING_CERT_PEM (or *_FILE) configured: signing with a self-signed development ' +
        'certificate generated at start-up. Configure a real key and certificate in production.',
    );
  }
  if (!options.timestamps) {
    logger.warn(
      "No TSA_URLS configured: signatures carry no RFC 3161 timestamp (their time is only this server's " +
        'clock). For tests of other things only; configure time-stamping authorities in production.',
    );
  }
  const setup: SignWorkerSetup = {
    signing,
    development,
    timestamps: options.timestamps,
    revocation: options.revocation,
    ...(options.warmUp ? { warmUp: options.warmUp } : {}),
  };
  const { source, eval: evalSource } = workerSource(WORKER_URL);

  const slots = new Set<Slot>();
  const warned = new Set<string>();
  const queue: PendingJob[] = [];
  let nextJobId = 1;
  let nextWorkerId = 1;
  let closing = false;

  let tick = 0;
  /** Take a job off its worker (it answered, or the worker ended). */
  const settle = (slot: Slot, pending: PendingJob): void => {
    slot.running.delete(pending.job.id);
    if (slot.waiting.has(pending.job.id)) {
      slot.waiting = new Set([...slot.waiting].filter((id) => id !== pending.job.id));
    }
    slot.bytes -= pending.bytes;
    slot.idleSince = ++tick;
    if (pending.timer) clearTimeout(pending.timer);
  };
  /** Take every job off a worker that ended: they are answered by the caller. */
  const settleAll = (slot: Slot): PendingJob[] => {
    const all = [...slot.running.values()];
    for (const pending of all) settle(slot, pending);
    return all;
  };

  /** A worker that can take `pending` now: it holds no job, or only jobs waiting on the network. */
  const canTake = (slot: Slot, pending: PendingJob): boolean =>
    slot.ready &&
    (slot.running.size === 0 ||
      (slot.running.size < maxJobsPerWorker &&
        slot.bytes + pending.bytes <= shareBytes &&
        computingJobs(slot).length === 0));
  /** When the latest of a worker's computing jobs began (undefined: none computes). */
  const busySince = (slot: Slot): number | undefined => {
    let since: number | undefined;
    for (const p of computingJobs(slot)) {
      if (p.startedAt !== undefined && (since === undefined || p.startedAt > since)) since = p.startedAt;
    }
    return since;
  };

  /**
   * Hand queued jobs, in arrival order, to the warmest free worker (`canTake`: idle, or all its jobs
   * waiting on the network): the one that has done most jobs (ties: the one free last). While a warmer
   * worker is busy computing a job that began less than `spillMs` ago, the job waits for it rather
   * than going to a colder free worker, unless it has itself waited `spillMs`. So short documents, alone or two at a time, are all signed by one worker, and a second
   * one takes work only when a document runs long (no signing waits behind it more than `spillMs`)
   * or a backlog builds up. Why: each worker is its own V8 isolate that compiles the signing code
   * for itself (TurboFan keeps optimising it for thousands of signings), marks its own heap and keeps
   * its own malloc arena. Spreading short jobs over two workers made each signing cost about 2 ms
   * more CPU (7.9 against 9.9 ms, alternating runs of `pnpm bench:signer`); spreading documents that
   * come one at a time made every worker keep its own last large document's garbage (20 MB signed
   * eight times in a row raised the signer's peak memory by 3.9-5.0x the file size instead of
   * 1.8-2.8x). docs/performance.md has the figures.
   */
  let spillTimer: NodeJS.Timeout | undefined;
  const dispatch = () => {
    if (spillTimer) clearTimeout(spillTimer);
    spillTimer = undefined;
    const ready = [...slots].filter((s) => s.ready);
    const now = performance.now();
    for (;;) {
      const pending = queue[0];
      if (!pending) return;
      const [best] = ready
        .filter((s) => canTake(s, pending))
        .sort((a, b) => b.jobs - a.jobs || b.idleSince - a.idleSince);
      if (!best) return;
      // Warmer workers that will probably be free soon: wait for them (until spillMs of waiting).
      const soonFree = ready.filter((s) => {
        const since = busySince(s);
        return since !== undefined && s.jobs > best.jobs && now - since < spillMs;
      });
      if (soonFree.length > 0 && now - pending.queuedAt < spillMs) {
        const until = Math.min(
          pending.queuedAt + spillMs,
          ...soonFree.map((s) => (busySince(s) ?? now) + spillMs),
        );
        spillTimer = setTimeout(dispatch, Math.max(1, Math.ceil(until - now)));
        spillTimer.unref();
        return;
      }
      queue.shift();
      best.running.set(pending.job.id, pending);
      best.bytes += pending.bytes;
      best.jobs += 1;
      pending.startedAt = now;
      if (isCounted(pending.job)) metrics?.waited(jobName(pending.job), (now - pending.queuedAt) / 1000);
      pending.timer = setTimeout(() => overBudget(best, pending), jobBudgetMs);
      best.worker.postMessage(pending.job, [pending.transfer]);
    }
  };

  const overBudget = (slot: Slot, pending: PendingJob) => {
    if (!slots.has(slot) || slot.running.get(pending.job.id) !== pending) return;
    const now = performance.now();
    // A job waiting for its token while another job on its worker computes is not what holds the
    // worker: the computing one is ended at its own budget (or finishes, and this one with it). Up to
    // twice the budget: past it, this job is ended whatever it waits for.
    const computing = computingJobs(slot).filter((p) => p !== pending);
    if (
      slot.waiting.has(pending.job.id) &&
      computing.length > 0 &&
      now - (pending.startedAt ?? now) < 2 * jobBudgetMs
    ) {
      const next = Math.min(...computing.map((p) => (p.startedAt ?? now) + jobBudgetMs));
      pending.timer = setTimeout(() => overBudget(slot, pending), Math.max(1, Math.ceil(next - now)) + 5);
      return;
    }
    const others = settleAll(slot).filter((p) => p !== pending);
    slots.delete(slot);
    metrics?.workerEnded(slot.id);
    if (metrics) {
      metrics.ended(jobName(pending.job), 'over_budget', onWorkerSeconds(pending));
      metrics.overBudget(jobName(pending.job), 'time');
      for (const other of others) metrics.ended(jobName(other.job), 'error', onWorkerSeconds(other));
    }
    void slot.worker.terminate();
    logger.warn('signing job over its budget: worker ended and replaced', {
      worker: slot.id,
      budgetMs: jobBudgetMs,
      ...(others.length > 0 ? { otherJobs: others.length } : {}),
    });
    const verb = 'inspect' in pending.job ? 'read' : 'sign';
    pending.reject(
      new ServiceError(
        'invalid_argument',
        `file: the document is too complex to ${verb} within ${seconds(jobBudgetMs)} s`,
        'file',
      ),
    );
    for (const other of others) other.reject(restarted('another document on it ran over its budget'));
    replace();
  };

  const onExit = (slot: Slot, code: number) => {
    // A worker ended over its budget has been taken out (and replaced) already.
    if (!slots.delete(slot)) return;
    metrics?.workerEnded(slot.id);
    const ended = settleAll(slot);
    if (closing) {
      for (const pending of ended)
        pending.reject(new ServiceError('unavailable', 'the signer is shutting down'));
      return;
    }
    const outOfMemory = isOutOfMemory(slot.error);
    // Out of memory with one job: that document's fault. With several, which one cannot be told.
    const [only] = ended.length === 1 ? ended : [];
    if (metrics) {
      for (const pending of ended) {
        const overMemory = outOfMemory && pending === only;
        metrics.ended(jobName(pending.job), overMemory ? 'over_budget' : 'error', onWorkerSeconds(pending));
        if (overMemory) metrics.overBudget(jobName(pending.job), 'memory');
      }
    }
    logger.error('signing worker stopped; replacing it', {
      worker: slot.id,
      exitCode: code,
      outOfMemory,
      jobs: ended.length,
      err: slot.error,
    });
    for (const pending of ended) {
      pending.reject(
        outOfMemory && pending === only
          ? new ServiceError(
              'invalid_argument',
              `file: the document needs more memory to sign than a signer allows (${workerHeapMb} MB)`,
              'file',
            )
          : outOfMemory
            ? restarted('it ran out of memory with several documents on it')
            : new Error(`signing worker stopped (exit code ${code})`, { cause: slot.error }),
      );
    }
    replace();
  };

  const spawn = (): Promise<Slot> =>
    new Promise<Slot>((resolve, reject) => {
      const worker = new Worker(source, {
        eval: evalSource,
        workerData: setup,
        execArgv: [],
        resourceLimits: workerResourceLimits(workerHeapMb, options.workerYoungMb),
      });
      const slot: Slot = {
        worker,
        id: nextWorkerId++,
        ready: false,
        idleSince: 0,
        jobs: 0,
        running: new Map(),
        waiting: new Set(),
        bytes: 0,
      };
      slots.add(slot);
      type Message = SignJobReply | SignWorkerReady | SignWorkerLog | SignWorkerObserved | SignWorkerWaiting;
      worker.on('message', (message: Message) => {
        if ('log' in message) {
          const { level, message: text, fields } = message.log;
          // Every worker checks qpdf at start-up: one warning of it is enough (warnings with fields,
          // such as an unreachable OCSP responder, are written every time).
          if (level === 'warn' && !fields && warned.has(text)) return;
          if (level === 'warn') warned.add(text);
          logger[level](text, fields);
          return;
        }
        if ('waiting' in message) {
          // Stale ids (of jobs answered since) cannot occur: a job stops waiting before it answers.
          slot.waiting = new Set(message.waiting);
          dispatch();
          return;
        }
        if (!('id' in message) && 'observed' in message) {
          metrics?.observed(slot.id, message.observed);
          return;
        }
        if ('ready' in message) {
          slot.ready = true;
          logger.info('signing worker ready', {
            worker: slot.id,
            ...(message.warmUpMs === undefined
              ? {}
              : { warmUpMs: message.warmUpMs, warmUpSignings: message.warmUpSignings }),
          });
          resolve(slot);
          dispatch();
          return;
        }
        if (message.observed) metrics?.observed(slot.id, message.observed);
        const pending = slot.running.get(message.id);
        if (!pending) return;
        settle(slot, pending);
        if (metrics && isCounted(pending.job)) {
          metrics.ended(
            jobName(pending.job),
            message.ok ? 'ok' : outcomeOf(message.error),
            onWorkerSeconds(pending),
          );
          if ('result' in message) metrics.signed(message.result.pageCount);
        }
        if (message.ok) {
          pending.resolve(message);
        } else {
          pending.reject(errorFrom(message.error));
        }
        dispatch();
      });
      worker.on('error', (err) => {
        slot.error = err;
      });
      worker.on('exit', (code) => {
        if (!slot.ready) {
          slots.delete(slot);
          reject(slot.error ?? new Error(`signing worker exited during start-up (code ${code})`));
          return;
        }
        onExit(slot, code);
      });
    });

  /** Start a worker in place of one that ended; retried every second while start-up fails. */
  const replace = () => {
    if (closing) return;
    spawn().catch((err: unknown) => {
      logger.error('could not start a signing worker; retrying in 1 s', { err });
      if ([...slots].every((s) => !s.ready)) {
        for (const pending of queue.splice(0)) {
          pending.reject(new ServiceError('unavailable', 'no signing worker is running'));
        }
      }
      if (!closing) setTimeout(replace, 1000).unref();
    });
  };

  metrics?.observePool({
    workers: () => {
      let ready = 0;
      for (const slot of slots) if (slot.ready) ready += 1;
      return ready;
    },
    active: () => {
      let active = 0;
      for (const slot of slots) active += slot.running.size;
      return active;
    },
    queued: () => queue.length,
  });

  try {
    await Promise.all(Array.from({ length: size }, spawn));
  } catch (err) {
    closing = true;
    await Promise.all([...slots].map((s) => s.worker.terminate()));
    throw err;
  }

  /** Queue a job for the next free worker (in arrival order, signings and inspections alike). */
  const submit = (job: WorkerJob, transfer: ArrayBuffer): Promise<SignJobSuccess> => {
    if (closing) return Promise.reject(new ServiceError('unavailable', 'the signer is shutting down'));
    return new Promise<SignJobSuccess>((resolve, reject) => {
      queue.push({ job, transfer, bytes: transfer.byteLength, resolve, reject, queuedAt: performance.now() });
      dispatch();
    });
  };

  /** Run an envelope job on a worker: the document written, and its facts (a revision, a completion). */
  const runEnvelope = async (task: EnvelopeTask, bytes: Buffer) => {
    const transfer = transferableBytes(bytes);
    const reply = await submit({ id: nextJobId++, envelope: { ...task, bytes: transfer } }, transfer);
    if (!('envelope' in reply)) throw new Error('signing worker answered an envelope job with no document');
    const { bytes: written, length, result, prepared } = reply.envelope;
    return { bytes: Buffer.from(written, 0, length), result, prepared };
  };
  const withResult = async (task: EnvelopeTask, bytes: Buffer): Promise<EnvelopeResult> => {
    const { bytes: written, result } = await runEnvelope(task, bytes);
    if (!result) throw new Error('signing worker answered an envelope job with no result');
    return { ...result, bytes: written };
  };
  const envelopes: EnvelopeOperations = {
    signRevision: ({ bytes, ...input }) => withResult({ op: 'sign-revision', input }, bytes),
    completeEnvelope: ({ bytes, ...input }) => withResult({ op: 'complete-envelope', input }, bytes),
    markIncomplete: async ({ bytes, ...input }) => ({
      bytes: (await runEnvelope({ op: 'mark-incomplete', input }, bytes)).bytes,
    }),
    prepareEnvelope: async ({ bytes, ...input }) => {
      const { bytes: written, prepared } = await runEnvelope({ op: 'prepare-envelope', input }, bytes);
      if (!prepared) throw new Error('signing worker answered a prepare-envelope job with no result');
      return { ...prepared, bytes: written };
    },
  };

  return {
    certificateFingerprint: identity.fingerprint256,
    developmentCertificate: identity.development,
    async sign(input: SignInput, hooks?: SignHooks): Promise<SignResult> {
      const { bytes, ...rest } = input;
      const transfer = transferableBytes(bytes);
      // Of the hooks only `offline` crosses to the worker (which reports its network waits itself).
      const job = {
        id: nextJobId++,
        input: { ...rest, bytes: transfer },
        ...(hooks?.offline ? { offline: true } : {}),
      };
      const reply = await submit(job, transfer);
      if (!('result' in reply)) throw new Error('signing worker answered a signing with no result');
      const { bytes: signed, length, ...result } = reply.result;
      return { ...result, bytes: Buffer.from(signed, 0, length) };
    },
    async inspect(bytes: Buffer): Promise<Inspected> {
      const transfer = transferableBytes(bytes);
      const reply = await submit({ id: nextJobId++, inspect: { bytes: transfer } }, transfer);
      if (!('inspected' in reply))
        throw new Error('signing worker answered an inspection with no page count');
      return reply.inspected;
    },
    envelopes,
    readyWorkers: () => [...slots].filter((s) => s.ready).length,
    jobsPerWorker: () => [...slots].map((s) => s.jobs),
    async close() {
      closing = true;
      if (spillTimer) clearTimeout(spillTimer);
      for (const pending of queue.splice(0)) {
        pending.reject(new ServiceError('unavailable', 'the signer is shutting down'));
      }
      await Promise.all([...slots].map((s) => s.worker.terminate()));
    },
  };
};
