import type { Logger } from '@esign/telemetry';
import type { OutboxRepository, TOutboxRow } from './outbox-repository';

/** The running relay. */
export interface OutboxRelay {
  /** Look at the outbox now (called after each commit that wrote to it). */
  readonly notify: () => void;
  /** Stop polling and wait for the pass under way. */
  stop(): Promise<void>;
}

/**
 * Move outbox rows to the bus: at once when notified, and every `pollMs` in any case, so that rows
 * left by a crash or by another replica's failure go out after a restart. One pass at a time per
 * process; a notify during a pass schedules another. Full batches are followed by another pass.
 */
export const startOutboxRelay = (options: {
  outbox: OutboxRepository;
  /** Subjects of the events `publish` can send. */
  subjects: readonly string[];
  publish: (row: TOutboxRow) => Promise<boolean>;
  logger: Logger;
  pollMs: number;
  batchSize: number;
}): OutboxRelay => {
  const { logger } = options;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;
  let failing = false;

  const drain = async (): Promise<void> => {
    do {
      again = false;
      const pass = await options.outbox.publishPending({
        limit: options.batchSize,
        subjects: options.subjects,
        publish: options.publish,
      });
      if (pass.failure !== undefined) {
        // Logged when the relay starts failing and when it recovers, not on every poll.
        if (!failing) logger.error('outbox relay cannot publish; will retry', { err: pass.failure });
        failing = true;
        return;
      }
      if (failing) logger.info('outbox relay publishing again');
      failing = false;
      if (pass.published > 0) logger.debug('outbox rows published', { count: pass.published });
      if (pass.claimed === options.batchSize && pass.published > 0) again = true;
    } while (again && !stopped);
  };

  const kick = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    running = drain()
      .catch((err: unknown) => {
        if (!failing) logger.error('outbox relay pass failed; will retry', { err });
        failing = true;
      })
      .finally(() => {
        running = undefined;
        if (again && !stopped) kick();
      });
  };

  const timer = setInterval(kick, options.pollMs);
  timer.unref();
  kick();

  return {
    notify: kick,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
};
