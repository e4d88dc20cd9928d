import type { BlobStore } from '@esign/blob';
import { ServiceError } from '@esign/contracts';
import { isDatabaseDown } from '@esign/db';
import { createOutageLog, type Logger } from '@esign/telemetry';
import type pg from 'pg';
import { whileHoldingLock } from './sweep-lock';

/** Where the signer writes signed PDFs: `signed/<accountId>/<auditId>.pdf`. */
export const SIGNED_PREFIX = 'signed/';
const SIGNED_KEY = /^signed\/[0-9a-f-]{36}\/([A-Z]{2,8}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4})\.pdf$/;

/** Only one replica sweeps at a time: the others skip the run. */
const LOCK = 'documents:signed-sweep';

export interface TSweepResult {
  /** Signed objects looked at in this run. */
  readonly examined: number;
  /** Removed: older than the grace period, and no record holds their audit ID. */
  readonly removed: string[];
  /** Keys under `signed/` that are not `signed/<accountId>/<auditId>.pdf`: left alone. */
  readonly unrecognised: number;
}

export interface SignedSweep {
  /** One run; `undefined` when another replica holds the sweep's lock. */
  runOnce(now?: Date): Promise<TSweepResult | undefined>;
}

/**
 * Removes signed PDFs that no document record holds. When the gateway gives up on `pdf.sign` (its
 * timeout) and the signer finishes later, the signed object is written but `document.record` never
 * comes. A run lists up to `batch` objects under `signed/`, continuing after where the previous run of
 * this process stopped (from the start again after the end), and removes those older than `graceMs`
 * whose audit ID (from the key) has no record. The age is the object's last-modified time in storage,
 * the record check one indexed query (`audit_id` is unique) for the whole page. A record that commits
 * later than `graceMs` after its object was written would lose the object, hence a grace well past the
 * gateway's sign timeout. Replicas take turns through a session advisory lock, tried, never waited
 * for.
 */
export const createSignedSweep = (deps: {
  pool: pg.Pool;
  blob: BlobStore;
  logger: Logger;
  graceMs: number;
  batch: number;
}): SignedSweep => {
  let startAfter: string | undefined;
  return {
    async runOnce(now = new Date()) {
      return whileHoldingLock(deps.pool, LOCK, async (client) => {
        const objects = await deps.blob.listObjects(SIGNED_PREFIX, { startAfter, limit: deps.batch });
        startAfter = objects.length < deps.batch ? undefined : objects.at(-1)?.key;
        let unrecognised = 0;
        const candidates: { key: string; auditId: string }[] = [];
        for (const object of objects) {
          const auditId = SIGNED_KEY.exec(object.key)?.[1];
          if (!auditId) unrecognised += 1;
          else if (now.getTime() - object.lastModified.getTime() > deps.graceMs) {
            candidates.push({ key: object.key, auditId });
          }
        }
        const recorded = new Set<string>();
        if (candidates.length > 0) {
          const found = await client.query<{ audit_id: string }>(
            'select audit_id from documents.documents where audit_id = any($1::text[])',
            [candidates.map((c) => c.auditId)],
          );
          for (const row of found.rows) recorded.add(row.audit_id);
        }
        const removed: string[] = [];
        for (const candidate of candidates) {
          if (recorded.has(candidate.auditId)) continue;
          await deps.blob.remove(candidate.key);
          removed.push(candidate.key);
        }
        if (removed.length > 0 || unrecognised > 0) {
          deps.logger.info('signed objects without a record removed', {
            examined: objects.length,
            removed: removed.length,
            keys: removed.slice(0, 20),
            unrecognised,
          });
        }
        return { examined: objects.length, removed, unrecognised };
      });
    },
  };
};

/** Run the sweep every `intervalMs` (first run one interval after the start); `stop` waits for a run. */
export const startSignedSweep = (options: {
  sweep: { runOnce(now?: Date): Promise<unknown> };
  intervalMs: number;
  logger: Logger;
  /** The time each run goes by (default: the sweep's own clock); tests move it. */
  now?: () => Date;
  /** Names the sweep in its log lines. */
  label?: string;
}): { stop(): Promise<void> } => {
  const label = options.label ?? 'signed-object sweep';
  let running: Promise<void> | undefined;
  let failing = false;
  const outage = createOutageLog({ logger: options.logger, dependency: `database (${label})` });
  const storageOutage = createOutageLog({ logger: options.logger, dependency: `object storage (${label})` });
  const timer = setInterval(() => {
    if (running) return;
    running = options.sweep
      .runOnce(options.now?.())
      .then(() => {
        outage.up();
        storageOutage.up();
        if (failing) options.logger.info(`${label} works again`);
        failing = false;
      })
      .catch((err: unknown) => {
        // Logged once until it works again (storage or the database being away is not news every run).
        if (isDatabaseDown(err)) return outage.down(err);
        if (err instanceof ServiceError && err.code === 'unavailable') return storageOutage.down(err);
        if (!failing) options.logger.warn(`${label} failed`, { err });
        failing = true;
      })
      .finally(() => {
        running = undefined;
      });
  }, options.intervalMs);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
};
