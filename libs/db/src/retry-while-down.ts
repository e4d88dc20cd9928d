import { setTimeout as sleepFor } from 'node:timers/promises';
import { isDatabaseDown } from './index';

/** Waits between tries: the first, doubling up to the longest. */
const FIRST_WAIT_MS = 100;
const LONGEST_WAIT_MS = 2_000;

/**
 * Run `write` again while the database is away (`isDatabaseDown`: a restart, a connection ended from
 * the server side), waiting 100 ms and doubling up to 2 s, for at most `withinMs`; any other error,
 * or the outage outlasting `withinMs`, is thrown. For the write that records what was already done
 * outside the database (an email handed to SMTP, a webhook a receiver answered): if a blip made that
 * write fail, the work would look undone and be done twice.
 */
export const retryWhileDown = async <T>(
  write: () => Promise<T>,
  options: {
    readonly withinMs: number;
    readonly now?: () => number;
    readonly sleep?: (ms: number) => Promise<void>;
  },
): Promise<T> => {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => sleepFor(ms));
  const giveUpAt = now() + options.withinMs;
  for (let wait = FIRST_WAIT_MS; ; wait = Math.min(wait * 2, LONGEST_WAIT_MS)) {
    try {
      return await write();
    } catch (err) {
      if (!isDatabaseDown(err) || now() + wait > giveUpAt) throw err;
      await sleep(wait);
    }
  }
};
