import { isBusDown, isStreamUnanswered } from '@esign/bus';
import { isDatabaseDown } from '@esign/db';
import { createOutageLog, inNewTrace, untraced, type Logger } from '@esign/telemetry';
import type { OutboxRepository, TBatchOutcome, TOutboxRow } from './outbox-repository';

/** The running relay. */
export interface OutboxRelay {
  /** Look at the outbox soon (called after each commit that wrote to it). */
  readonly notify: () => void;
  /** Stop polling, run the pass a notify was waiting for, and wait for the pass under way. */
  stop(): Promise<void>;
}

/**
 * Move outbox rows to the bus: soon after a notify, and every `pollMs` in any case, so that rows left
 * by a crash or by another replica's failure go out after a restart. One pass at a time per process.
 * A notify starts a pass `coalesceMs` later, and notifies until then (or during a pass, which
 * schedules the next one the same way) ride along: a burst of records is published by one pass, not
 * one per record. Full batches are followed by another pass at once.
 */
export const startOutboxRelay = (options: {
  outbox: OutboxRepository;
  /** Subjects of the events `publish` can send. */
  subjects: readonly string[];
  publish: (rows: readonly TOutboxRow[]) => Promise<TBatchOutcome>;
  logger: Logger;
  pollMs: number;
  batchSize: number;
  /** How long a notify waits for others to join it before the pass starts (default 0). */
  coalesceMs?: number;
}): OutboxRelay => {
  const { logger } = options;
  const coalesceMs = options.coalesceMs ?? 0;
  let running: Promise<void> | undefined;
  let scheduled: NodeJS.Timeout | undefined;
  let again = false;
  let stopped = false;
  let failing = false;
  // The database away fails every pass until it is back: one line when it goes, one when it is back.
  const outage = createOutageLog({ logger, dependency: 'database (outbox relay)' });
  // NATS away: the same, instead of an error with its stack.
  const busOutage = createOutageLog({ logger, dependency: 'message bus (outbox relay)' });
  // No stream answering a publish: a NATS cluster electing the stream's leader (seconds).
  const streamOutage = createOutageLog({ logger, dependency: 'JetStream stream (outbox relay)' });

  const drain = async (): Promise<void> => {
    for (;;) {
      // Polls are not traced; a batch that goes out is, as a trace of its own.
      const pass = await untraced(() =>
        options.outbox.publishPending({
          limit: options.batchSize,
          subjects: options.subjects,
          publish: (rows) =>
            inNewTrace(
              'outbox publish',
              { 'outbox.rows': rows.length },
              () => options.publish(rows),
              rows.map((row) => row.traceContext),
            ),
        }),
      );
      outage.up();
      if (pass.published > 0) logger.debug('outbox rows published', { count: pass.published });
      if (pass.failure !== undefined) {
        if (isBusDown(pass.failure)) return busOutage.down(pass.failure);
        if (isStreamUnanswered(pass.failure)) return streamOutage.down(pass.failure);
        // Logged when the relay starts failing and when it recovers, not on every poll.
        if (!failing) logger.error('outbox relay cannot publish; will retry', { err: pass.failure });
        failing = true;
        return;
      }
      if (pass.published > 0) {
        busOutage.up();
        streamOutage.up();
      }
      if (failing) logger.info('outbox relay publishing again');
      failing = false;
      if (pass.claimed < options.batchSize || pass.published === 0 || stopped) return;
    }
  };

  const run = (): void => {
    scheduled = undefined;
    again = false;
    running = drain()
      .catch((err: unknown) => {
        if (isDatabaseDown(err)) return outage.down(err);
        if (!failing) logger.error('outbox relay pass failed; will retry', { err });
        failing = true;
      })
      .finally(() => {
        running = undefined;
        if (again) schedule(coalesceMs);
      });
  };

  const schedule = (delayMs: number): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    if (scheduled) return;
    scheduled = setTimeout(run, delayMs);
  };

  const timer = setInterval(() => schedule(0), options.pollMs);
  timer.unref();
  schedule(0);

  return {
    notify: () => schedule(coalesceMs),
    async stop() {
      clearInterval(timer);
      if (scheduled) {
        // Records already answered should not wait for another replica's poll or the next start.
        clearTimeout(scheduled);
        run();
      }
      stopped = true;
      await running;
    },
  };
};
