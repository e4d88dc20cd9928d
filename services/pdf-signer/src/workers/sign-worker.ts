/**
 * A signing worker thread: loads the signer once (fonts, key, certificate), then signs the jobs the
 * pool sends it. Started by `startSignPool`, never per request. It tells the pool which of its jobs
 * wait on the network (a TSA token): the pool hands it another job only while all of them do.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { ServiceError } from '@esign/contracts';
import { createSigner } from '../create-signer';
import { loadPdf } from '../domain/document/load-pdf';
import { fileHashOf, pageSizesOf } from '../domain/envelope/envelope-operations';
import type { Network } from '../domain/envelope/envelope-operations';
import { createObservationBuffer } from './observation-buffer';
import { warmUpSigner } from './warm-up';
import type { SignHooks } from '../domain/assemble-signer';
import { transferableView } from './sign-job';
import type {
  EnvelopeJob,
  SignJobError,
  SignJobReply,
  SignWorkerLog,
  SignWorkerObserved,
  SignWorkerReady,
  SignWorkerSetup,
  SignWorkerWaiting,
  WorkerJob,
} from './sign-job';

const port = parentPort;
if (!port) throw new Error('sign-worker.ts runs as a worker thread only');
const setup = workerData as SignWorkerSetup;

// What the signer logs goes to the pool, which writes it with the service's logger.
const log = (level: 'info' | 'warn' | 'error') => (message: string, fields?: Record<string, unknown>) => {
  const line: SignWorkerLog = { log: { level, message, fields } };
  port.postMessage(line);
};

// What the signer does on the network goes back with each job's reply; what it does while no job
// runs (start-up, background revocation refreshes) in a message of its own, a few a minute at most.
let jobsRunning = 0;
let flushing = false;
const flush = () => {
  flushing = false;
  if (jobsRunning > 0) return;
  const observed = observations.take();
  if (!observed) return;
  const message: SignWorkerObserved = { observed };
  port.postMessage(message);
};
const observations = createObservationBuffer(() => {
  if (jobsRunning > 0 || flushing) return;
  flushing = true;
  setImmediate(flush);
});
/** A job's reply, with what was observed while it ran. */
const replyTo = (reply: SignJobReply): SignJobReply => {
  jobsRunning -= 1;
  const observed = observations.take();
  return observed ? { ...reply, observed } : reply;
};

const signer = await createSigner({
  signing: setup.signing,
  development: setup.development,
  timestamps: setup.timestamps,
  revocation: setup.revocation,
  observer: observations.observer,
  info: log('info'),
  warn: log('warn'),
  error: log('error'),
});

// Jobs waiting on the network now (job id -> its requests in flight), reported at every change.
const waiting = new Map<number, number>();
const reportWaiting = () => {
  const message: SignWorkerWaiting = { waiting: [...waiting.keys()] };
  port.postMessage(message);
};
/** A job's hooks: its TSA requests mark it waiting while they are in flight. */
const hooksFor = (id: number): SignHooks => ({
  async network<T>(request: () => Promise<T>): Promise<T> {
    const inFlight = waiting.get(id) ?? 0;
    waiting.set(id, inFlight + 1);
    if (inFlight === 0) reportWaiting();
    try {
      return await request();
    } finally {
      // Reported before the job computes again (and so before its reply).
      const left = (waiting.get(id) ?? 1) - 1;
      if (left > 0) {
        waiting.set(id, left);
      } else {
        waiting.delete(id);
        reportWaiting();
      }
    }
  },
});

const errorOf = (err: unknown): SignJobError => {
  if (err instanceof ServiceError) {
    return { name: err.name, message: err.message, code: err.code, field: err.field };
  }
  if (err instanceof Error) return { name: err.name, message: err.message, stack: err.stack };
  return { name: 'Error', message: String(err) };
};

/**
 * Read a document as signing would (the same loader, repairs included): its pages, their visible sizes,
 * and the hash of the bytes as given.
 */
const inspect = async (bytes: ArrayBuffer) => {
  const buffer = Buffer.from(bytes);
  const fileHash = fileHashOf(buffer);
  const { doc } = await loadPdf(buffer);
  return { pageCount: doc.getPageCount(), pageSizes: pageSizesOf(doc), fileHash };
};

/** Run an envelope job on this worker's signer. */
const runEnvelope = async (job: EnvelopeJob) => {
  const { bytes: input, ...task } = job.envelope;
  const bytes = Buffer.from(input);
  const hooks = hooksFor(job.id);
  const network: Network = (request) => (hooks.network ? hooks.network(request) : request());
  switch (task.op) {
    case 'sign-revision': {
      const { bytes: written, ...result } = await signer.envelopes.signRevision(
        { ...task.input, bytes },
        network,
      );
      return { written, result };
    }
    case 'complete-envelope': {
      const { bytes: written, ...result } = await signer.envelopes.completeEnvelope(
        { ...task.input, bytes },
        network,
      );
      return { written, result };
    }
    case 'mark-incomplete': {
      const { bytes: written } = await signer.envelopes.markIncomplete({ ...task.input, bytes });
      return { written, result: undefined };
    }
    case 'prepare-envelope': {
      const { bytes: written, ...prepared } = await signer.envelopes.prepareEnvelope({
        ...task.input,
        bytes,
      });
      return { written, result: undefined, prepared };
    }
  }
};

port.on('message', (job: WorkerJob) => {
  jobsRunning += 1;
  if ('inspect' in job) {
    inspect(job.inspect.bytes).then(
      (inspected) => port.postMessage(replyTo({ id: job.id, ok: true, inspected })),
      (err: unknown) => port.postMessage(replyTo({ id: job.id, ok: false, error: errorOf(err) })),
    );
    return;
  }
  if ('envelope' in job) {
    runEnvelope(job).then(
      (done) => {
        const { written, result } = done;
        const prepared = 'prepared' in done ? done.prepared : undefined;
        const view = transferableView(written);
        const envelope = {
          bytes: view.buffer,
          length: view.length,
          ...(result ? { result } : {}),
          ...(prepared ? { prepared } : {}),
        };
        port.postMessage(replyTo({ id: job.id, ok: true, envelope }), [view.buffer]);
      },
      (err: unknown) => port.postMessage(replyTo({ id: job.id, ok: false, error: errorOf(err) })),
    );
    return;
  }
  const { bytes, ...rest } = job.input;
  const hooks: SignHooks = job.offline ? { ...hooksFor(job.id), offline: true } : hooksFor(job.id);
  signer.sign({ ...rest, bytes: Buffer.from(bytes) }, hooks).then(
    (result) => {
      const signed = transferableView(result.bytes);
      const reply = replyTo({
        id: job.id,
        ok: true,
        result: { ...result, bytes: signed.buffer, length: signed.length },
      });
      port.postMessage(reply, [signed.buffer]);
    },
    (err: unknown) => port.postMessage(replyTo({ id: job.id, ok: false, error: errorOf(err) })),
  );
});

// Before taking jobs: sign synthetic documents for a while (offline, stored nowhere), so that the
// first requests do not pay for V8's compilation of the signing code (`SIGN_WARM_UP_MS`).
// A warm-up that fails is no reason not to sign: the first requests then compile what they need.
const warmedUp = setup.warmUp
  ? await warmUpSigner(signer, setup.warmUp).catch((err: unknown) => {
      log('warn')('signing worker warm-up failed', { err: errorOf(err) });
      return undefined;
    })
  : undefined;
const ready: SignWorkerReady = {
  ready: true,
  ...(warmedUp ? { warmUpMs: warmedUp.ms, warmUpSignings: warmedUp.signings } : {}),
};
port.postMessage(ready);
