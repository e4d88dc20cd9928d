import { isDatabaseDown } from '@esign/db';
import { createOutageLog, inNewTrace, untraced, type Logger } from '@esign/telemetry';
import type { ClaimedDelivery, WebhookStore } from '../db/store';
import type { Clock } from '../domain/clock';

export interface DeliveryLoop {
  /** Look for due deliveries now (a new event or a replay was queued). */
  notify(): void;
  /** Stop claiming, finish the attempts in flight. */
  stop(): Promise<void>;
}

/**
 * Every `intervalMs` (and at once when notified) claim the deliveries due by `now` up to the free
 * places of `concurrency` and attempt them (`attempt`: domain/attempt-delivery). The state lives in Postgres only, so deliveries and their retries
 * survive restarts, and replicas share them (`FOR UPDATE SKIP LOCKED` + a lease).
 */
export const startDeliveryLoop = (deps: {
  store: WebhookStore;
  attempt: (claimed: ClaimedDelivery) => Promise<void>;
  now: Clock;
  concurrency: number;
  intervalMs: number;
  leaseMs: number;
  logger: Logger;
}): DeliveryLoop => {
  const active = new Set<Promise<void>>();
  let stopped = false;
  let running = false;
  let again = false;
  let timer: NodeJS.Timeout | undefined;
  // A poll fails every interval while the database is away: that is one outage, not a warning a poll.
  const outage = createOutageLog({ logger: deps.logger, dependency: 'database (webhook delivery poll)' });
  const attemptOutage = createOutageLog({ logger: deps.logger, dependency: 'database (webhook attempts)' });

  const run = (claimed: ClaimedDelivery) => {
    const job: Promise<void> = inNewTrace(
      'webhook deliver',
      { 'webhook.event_type': claimed.event.type },
      () => deps.attempt(claimed),
    )
      .then(() => attemptOutage.up())
      .catch((err: unknown) => {
        // The lease brings it back after leaseMs. The database away (its outcome could not be
        // recorded within the lease, or the endpoint's health after it) is the outage, not an error.
        if (isDatabaseDown(err)) attemptOutage.down(err);
        else
          deps.logger.error('webhook attempt failed unexpectedly', { deliveryId: claimed.delivery.id, err });
      })
      .finally(() => {
        active.delete(job);
        // A place is free: there may be more due.
        tick();
      });
    active.add(job);
  };

  const poll = async () => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const free = deps.concurrency - active.size;
        if (stopped || free <= 0) break;
        const claimed = await untraced(() => deps.store.claimDue(free, deps.leaseMs, deps.now()));
        outage.up();
        for (const c of claimed) run(c);
        if (claimed.length === free) again = true;
      } while (again && !stopped);
    } catch (err) {
      if (isDatabaseDown(err)) outage.down(err);
      else deps.logger.warn('webhook delivery poll failed', { err });
    } finally {
      running = false;
    }
  };

  const tick = () => {
    if (!stopped) void poll();
  };
  const schedule = () => {
    timer = setTimeout(() => {
      tick();
      if (!stopped) schedule();
    }, deps.intervalMs);
  };
  schedule();
  tick();

  return {
    notify: tick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await Promise.allSettled([...active]);
    },
  };
};
