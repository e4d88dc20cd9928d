import type { LogFields, Logger } from './logger';

/**
 * One line when a dependency goes away and one when it is back, whatever happens in between: during a
 * database restart every request and every poll fails, and a warning (with its stack) for each of them
 * buried the one thing worth reading, that the database was away and for how long.
 */
export interface OutageLog {
  /** A failure meaning the dependency is away: logged (`warn`, the error's message) only when an outage starts. */
  down(err: unknown, fields?: LogFields): void;
  /** A success: logged (`info`, with the outage's length) only when it ends an outage. */
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
}): OutageLog => {
  const now = options.now ?? Date.now;
  let since: number | undefined;
  let failures = 0;
  return {
    down(err, fields) {
      failures += 1;
      if (since !== undefined) return;
      since = now();
      options.logger.warn('dependency unavailable', {
        dependency: options.dependency,
        error: messageOf(err),
        ...fields,
      });
    },
    up() {
      if (since === undefined) return;
      options.logger.info('dependency available again', {
        dependency: options.dependency,
        outageMs: now() - since,
        failures,
      });
      since = undefined;
      failures = 0;
    },
    get isDown() {
      return since !== undefined;
    },
  };
};
