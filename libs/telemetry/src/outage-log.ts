import type { LogFields, Logger } from './logger';

/**
 * One line when a dependency goes away and one when it is back, whatever happens in between: during a
 * database restart every request and every poll fails, and a warning (with its stack) for each of them
 * buried the one thing worth reading, that the database was away and for how long.
 *
 * An outage ends only once the dependency has stayed up for a settling time: when the server ends all
 * of a pool's connections at once, their errors arrive one by one, and a new connection made between
 * two of them is a success. Without it one restart read as several outages a few milliseconds apart.
 */
export interface OutageLog {
  /** A failure meaning the dependency is away: logged (`warn`, the error's message) only when an outage starts. */
  down(err: unknown, fields?: LogFields): void;
  /**
   * A success: when it ends an outage, logged (`info`, with the outage's length up to this success)
   * once no failure has come for the settling time. A failure meanwhile continues the same outage.
   */
  up(): void;
  /** True between a `down` and the next `up`. */
  readonly isDown: boolean;
}

/**
 * The message of the error at the root of `err`: drizzle wraps a driver error in one whose message is
 * `Failed query: <the SQL>\nparams: <its parameters>` (kilobytes, and parameters may be an email or an
 * account), while its cause says what happened (`connect ECONNREFUSED …`).
 */
const messageOf = (err: unknown): string => {
  let root = err;
  for (let depth = 0; depth < 5 && root instanceof Error && root.cause instanceof Error; depth++)
    root = root.cause;
  return root instanceof Error ? root.message : String(root);
};

/** The outage log of one dependency (`dependency` names it in both lines: `dependency unavailable`, `dependency available again`). */
export const createOutageLog = (options: {
  logger: Logger;
  dependency: string;
  /** The clock of the outage's length (tests move it). */
  now?: () => number;
  /** How long the dependency must stay up before its outage is over (default 1 s; 0 ends it at once). */
  settleMs?: number;
}): OutageLog => {
  const now = options.now ?? Date.now;
  const settleMs = options.settleMs ?? DEFAULT_SETTLE_MS;
  /** When the outage began; undefined when there is none, settling or not. */
  let since: number | undefined;
  /** When the success that may end it came; undefined while failing. */
  let recovered: number | undefined;
  let settling: NodeJS.Timeout | undefined;
  let failures = 0;
  const end = () => {
    settling = undefined;
    if (since === undefined || recovered === undefined) return;
    options.logger.info('dependency available again', {
      dependency: options.dependency,
      outageMs: recovered - since,
      failures,
    });
    since = undefined;
    recovered = undefined;
    failures = 0;
  };
  return {
    down(err, fields) {
      failures += 1;
      recovered = undefined;
      if (settling) {
        clearTimeout(settling);
        settling = undefined;
      }
      if (since !== undefined) return;
      since = now();
      options.logger.warn('dependency unavailable', {
        dependency: options.dependency,
        error: messageOf(err),
        ...fields,
      });
    },
    up() {
      if (since === undefined || recovered !== undefined) return;
      recovered = now();
      if (settleMs <= 0) return end();
      // Unreferenced: a settling outage does not keep a stopping process alive.
      settling = setTimeout(end, settleMs);
      settling.unref();
    },
    get isDown() {
      return since !== undefined && recovered === undefined;
    },
  };
};

const DEFAULT_SETTLE_MS = 1000;
