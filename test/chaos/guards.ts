/**
 * The harness's guard rails, so that `pnpm chaos` never hangs: an overall deadline per scenario, a
 * watch on the service processes (one that exits unexpectedly fails its scenario at once, with its exit
 * code and last log lines, instead of being waited on), and a time budget for the audit's retries.
 */
import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** How many of a service's last log lines a failure report carries. */
const LAST_LINES = 20;

/** A scenario stopped by a guard rail (its deadline or a process that exited). */
export class ScenarioAborted extends Error {
  override name = 'ScenarioAborted';
}

/** One exit of a watched process. */
export interface ProcessExit {
  readonly service: string;
  readonly pid: number | undefined;
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  /** Stopped on purpose (by the stack's handle, or killed by the scenario through kill9/terminate). */
  readonly expected?: boolean;
}

/** What a guarded run gets: where to report exits and lines, and a way to stop early once aborted. */
export interface Guard {
  /** The last log lines, per service (every replica's together). */
  line(service: string, line: string): void;
  /** A watched process exited; unless it was expected, the scenario fails now. */
  exited(exit: ProcessExit): void;
  /** This pid is about to be killed on purpose: its exit is no failure. */
  expectExit(pid: number): void;
  /** Watch a child process of the scenario's own: its output lines and its exit. */
  watchChild(service: string, child: ChildProcess): void;
  /** Throws once the scenario was aborted (its deadline passed or a process exited): loops call it. */
  throwIfAborted(): void;
  readonly signal: AbortSignal;
}

const describeExit = (exit: ProcessExit): string =>
  exit.signal ? `signal ${exit.signal}` : `code ${exit.code ?? '?'}`;

/**
 * Run `body` under the guard rails: it settles with the body's result, or rejects with
 * ScenarioAborted when `deadlineMs` passes first ("deadline exceeded after N s") or when a watched
 * process exits unexpectedly (which process, its exit code or signal, its last log lines). The body
 * is not waited on after that: its loops stop at their next `throwIfAborted`.
 */
export const runGuarded = async <T>(deadlineMs: number, body: (guard: Guard) => Promise<T>): Promise<T> => {
  const controller = new AbortController();
  const lines = new Map<string, string[]>();
  const expected = new Set<number>();
  let fail: (err: ScenarioAborted) => void = () => undefined;
  const failed = new Promise<never>((_, reject) => (fail = reject));
  const abort = (reason: string) => {
    if (controller.signal.aborted) return;
    const err = new ScenarioAborted(reason);
    controller.abort(err);
    fail(err);
  };
  const guard: Guard = {
    line(service, line) {
      const list = lines.get(service) ?? [];
      list.push(line);
      if (list.length > LAST_LINES) list.shift();
      lines.set(service, list);
    },
    exited(exit) {
      if (exit.expected || (exit.pid !== undefined && expected.has(exit.pid))) return;
      const last = lines.get(exit.service) ?? [];
      abort(
        `${exit.service} (pid ${exit.pid ?? '?'}) exited with ${describeExit(exit)}` +
          (last.length ? `; last log lines:\n    ${last.join('\n    ')}` : '; no log lines'),
      );
    },
    expectExit(pid) {
      expected.add(pid);
    },
    watchChild(service, child) {
      for (const stream of [child.stdout, child.stderr]) {
        if (stream) createInterface({ input: stream }).on('line', (l) => guard.line(service, l));
      }
      // 'close', not 'exit': the output is read to its end before the exit is reported.
      child.once('close', (code, signal) => guard.exited({ service, pid: child.pid, code, signal }));
    },
    throwIfAborted() {
      if (controller.signal.aborted) throw abortError(controller.signal);
    },
    signal: controller.signal,
  };
  const timer = setTimeout(
    () => abort(`deadline exceeded after ${Number((deadlineMs / 1000).toFixed(1))} s`),
    deadlineMs,
  );
  const run = body(guard);
  // Once aborted, the body's own end (often a rejection as its stack is stopped) is no one's concern.
  run.catch(() => undefined);
  try {
    return await Promise.race([run, failed]);
  } finally {
    clearTimeout(timer);
    // The body ended on its own: later exits (the stack being stopped) are no failure.
    abort('scenario ended');
  }
};

const abortError = (signal: AbortSignal): Error =>
  signal.reason instanceof Error ? signal.reason : new ScenarioAborted('aborted');

/** A sleep that ends early (rejecting) when the scenario is aborted. */
export const guardedSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal.aborted) return reject(abortError(signal));
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });

/** The audit's retries: at most `maxAttempts` per item, all of them within `budgetMs`. */
export interface RetryBudget {
  readonly budgetMs: number;
  readonly maxAttempts: number;
  /** Longest wait between two attempts of one item. */
  readonly maxWaitMs: number;
}

/** One attempt's outcome: done, or the wait its answer asked for (Retry-After) before the next. */
export interface Attempt<T> {
  readonly value: T;
  readonly done: boolean;
  readonly waitMs: number;
}

export interface RetryOutcome<T> {
  /** The last answer of every item tried at least once. */
  readonly last: Map<string, T>;
  /** Items not resolved when the budget ran out (not retried any further, some never tried). */
  readonly unresolved: string[];
}

/**
 * Retry each item in turn until it is done or has had `maxAttempts`, with no attempt and no wait
 * begun once `budgetMs` is spent: what is left then is unresolved, not retried. An attempt already
 * running when the budget ends is let finish (each has its own bound).
 */
export const retryWithinBudget = async <T>(
  items: readonly string[],
  attempt: (item: string) => Promise<Attempt<T>>,
  budget: RetryBudget,
  sleep: (ms: number) => Promise<void>,
): Promise<RetryOutcome<T>> => {
  const endsAt = performance.now() + budget.budgetMs;
  // Set once a wait was cut to what was left of the budget: a timer that fires a hair early must not
  // buy another try.
  let cut = false;
  const spent = () => cut || performance.now() >= endsAt;
  const last = new Map<string, T>();
  const unresolved: string[] = [];
  for (const item of items) {
    let done = false;
    for (let n = 0; n < budget.maxAttempts && !spent(); n++) {
      const a = await attempt(item);
      last.set(item, a.value);
      done = a.done;
      if (done || n === budget.maxAttempts - 1) break;
      const left = endsAt - performance.now();
      if (left <= 0) break;
      const wait = Math.min(a.waitMs, budget.maxWaitMs, left);
      cut = wait === left;
      await sleep(wait);
    }
    if (!done && spent()) unresolved.push(item);
  }
  return { last, unresolved };
};
