import { isDatabaseDown } from '@esign/db';
import { createOutageLog, untraced, type Logger } from '@esign/telemetry';
import type { WebhookStore } from '../db/store';

/** Rows removed per table and sweep at most, so that one sweep never holds the tables for long. */
const SWEEP_BATCH = 10_000;

/**
 * Every `intervalMs`, remove finished deliveries and events older than `retentionDays` (a pending
 * delivery keeps its event). The age is the database's `created_at`, so the database's clock judges it.
 */
export const startRetentionSweep = (deps: {
  store: WebhookStore;
  retentionDays: number;
  intervalMs: number;
  logger: Logger;
}): { stop(): void } => {
  const outage = createOutageLog({ logger: deps.logger, dependency: 'database (webhook retention sweep)' });
  const timer = setInterval(() => {
    void untraced(() => deps.store.sweep(deps.retentionDays, SWEEP_BATCH))
      .then((removed) => {
        outage.up();
        if (removed.deliveries || removed.events) deps.logger.info('webhook retention sweep', removed);
      })
      .catch((err: unknown) => {
        if (isDatabaseDown(err)) outage.down(err);
        else deps.logger.warn('webhook retention sweep failed', { err });
      });
  }, deps.intervalMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
};
