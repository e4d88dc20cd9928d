import { setTimeout as sleepFor } from 'node:timers/promises';

/** Waits between tries: the first, doubling up to the longest. */
const FIRST_WAIT_MS = 100;
const LONGEST_WAIT_MS = 2_000;

export interface RetryWhileOptions {
  /** How long to keep trying, from the first try; the wait that would pass it is not begun. */
  readonly withinMs: number;
  /** Called before each wait with the error that caused it (an outage log's `down`). */
  readonly onRetry?: (err: unknown) => void;
  /** Stop waiting (a shutdown): the last error is thrown at once. */
  readonly stopped?: () => boolean;
  /** The clock and the wait (tests; default real time). */
  readonly now?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
}

/**
 * Run `work` again while it fails with an error `isTransient` recognises (a dependency away: a database
 * restart, a connection ended by the server), waiting 100 ms and doubling up to 2 s, for at most
 * `withinMs`; any other error, or the outage outlasting `withinMs`, is thrown. The work is done as
 * soon as the dependency is back, instead of after a backoff sized for failures that are not outages.
 */
export const retryWhile = async <T>(
  work: () => Promise<T>,
  isTransient: (err: unknown) => boolean,
  options: RetryWhileOptions,
): Promise<T> => {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => sleepFor(ms));
  const giveUpAt = now() + options.withinMs;
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    try {
      return await work();
    } catch (err) {
      if (!isTransient(err) || now() + wait > giveUpAt || options.stopped?.()) throw err;
      options.onRetry?.(err);
      await sleep(wait);
    }
  }
};
