import { X509Certificate } from 'node:crypto';
import type { Instruments } from '@esign/telemetry';
import type { WorkerObservations } from './sign-job';

/** A job on a worker thread: signing and inspection share the signing pool, verification has its own worker. */
export type SignerJob = 'sign' | 'inspect' | 'verify';
/** How a job ended: `rejected` is the document's fault (bad input), `error` the service's or a dependency's. */
export type JobOutcome = 'ok' | 'rejected' | 'over_budget' | 'error';
/** The budget a job ran over: its time (SIGN_JOB_BUDGET_MS) or its worker's heap. */
export type JobBudget = 'time' | 'memory';

/** What the signing pool is doing now, read at each scrape. */
export interface PoolState {
  /** Workers up and ready. */
  workers(): number;
  /** Jobs on a worker now. */
  active(): number;
  /** Jobs waiting for a worker. */
  queued(): number;
}

/**
 * The signer's metrics (catalog entries `signer*`, `timestampRequestDuration`,
 * `revocationRequestDuration`, `certificateTimeLeft`, `revocationTimeLeft`), created once at start-up
 * from the service's instruments and handed to the pool and the verifier.
 */
export interface SignerMetrics {
  /** Report the pool's workers, active and queued jobs at each scrape (called once, by the pool). */
  observePool(pool: PoolState): void;
  /** The sealing certificate (DER, the leaf): its time left is reported at each scrape. */
  signingCertificate(certificate: Buffer): void;
  /** A job reached its worker after waiting `seconds` in the queue. */
  waited(job: SignerJob, seconds: number): void;
  /** A job ended after `seconds` on its worker. */
  ended(job: SignerJob, outcome: JobOutcome, seconds: number): void;
  /** A job was stopped for running over a budget (its worker was ended). */
  overBudget(job: SignerJob, budget: JobBudget): void;
  /** A document of `pages` pages was signed. */
  signed(pages: number): void;
  /** What worker `worker` reported of its TSA, OCSP and CRL requests and of their certificates. */
  observed(worker: number, observations: WorkerObservations): void;
  /** Worker `worker` ended: its revocation cache went with it. */
  workerEnded(worker: number): void;
}

export const createSignerMetrics = (metrics: Instruments): SignerMetrics => {
  const queueWait = metrics.histogram('signerQueueWait');
  const jobDuration = metrics.histogram('signerJobDuration');
  const pages = metrics.counter('signerPages');
  const overBudget = metrics.counter('signerOverBudget');
  const timestamps = metrics.histogram('timestampRequestDuration');
  const revocations = metrics.histogram('revocationRequestDuration');
  let signingNotAfter: number | undefined;
  let timestampNotAfter: number | undefined;
  // Each worker keeps its own revocation cache: the soonest nextUpdate of each, by worker.
  const revocationExpiry = new Map<number, number>();

  metrics.gauge('certificateTimeLeft', (report) => {
    const now = Date.now();
    if (signingNotAfter !== undefined) {
      report((signingNotAfter - now) / 1000, { 'esign.certificate': 'signing' });
    }
    if (timestampNotAfter !== undefined) {
      report((timestampNotAfter - now) / 1000, { 'esign.certificate': 'timestamp_authority' });
    }
  });
  metrics.gauge('revocationTimeLeft', (report) => {
    if (revocationExpiry.size > 0) report((Math.min(...revocationExpiry.values()) - Date.now()) / 1000);
  });

  return {
    observePool(pool) {
      metrics.gauge('signerWorkers', (report) => report(pool.workers()));
      metrics.gauge('signerJobsActive', (report) => report(pool.active()));
      metrics.gauge('signerJobsQueued', (report) => report(pool.queued()));
    },
    signingCertificate(certificate) {
      const notAfter = Date.parse(new X509Certificate(certificate).validTo);
      signingNotAfter = Number.isNaN(notAfter) ? undefined : notAfter;
    },
    waited: (job, seconds) => queueWait.record(seconds, { 'esign.job': job }),
    ended: (job, outcome, seconds) =>
      jobDuration.record(seconds, { 'esign.job': job, 'esign.outcome': outcome }),
    overBudget: (job, budget) => overBudget.add(1, { 'esign.job': job, 'esign.budget': budget }),
    signed: (count) => pages.add(count),
    observed(worker, observations) {
      for (const request of observations.requests) {
        const outcome = request.ok ? 'ok' : 'error';
        if (request.kind === 'timestamp') {
          timestamps.record(request.seconds, {
            'esign.provider': request.provider,
            'esign.outcome': outcome,
          });
        } else {
          revocations.record(request.seconds, {
            'esign.revocation': request.kind,
            'esign.provider': request.provider,
            'esign.outcome': outcome,
          });
        }
      }
      if (observations.timestampCertificate !== undefined) {
        timestampNotAfter = observations.timestampCertificate;
      }
      if (observations.revocationExpiry === null) revocationExpiry.delete(worker);
      else if (observations.revocationExpiry !== undefined) {
        revocationExpiry.set(worker, observations.revocationExpiry);
      }
    },
    workerEnded: (worker) => revocationExpiry.delete(worker),
  };
};
