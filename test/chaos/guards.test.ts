import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { retryWithinBudget, type Attempt } from './guards';
import { failedReport, formatTable, guardScenario, type Report } from './harness';

// The harness's guard rails on their own, with no stack and no real fault: each test takes well under
// a few seconds.

const forever = () => new Promise<never>(() => undefined);
const holding: Report = { ...failedReport('ok', ''), problems: [], holds: true };

describe('the chaos harness never hangs', () => {
  it('a scenario whose body never ends fails at its deadline, as a row that says so', async () => {
    const started = performance.now();
    const report = await guardScenario('stuck', 300, () => undefined, forever);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(report.holds).toBe(false);
    expect(report.problems).toEqual(['deadline exceeded after 0.3 s']);
    expect(formatTable([report])).toMatch(/\| stuck +\|.*\| no: deadline exceeded after 0\.3 s +\|/);
  });

  it('a service process that exits during a scenario fails it, naming the process, its code and its last lines', async () => {
    const started = performance.now();
    const report = await guardScenario(
      'exits',
      30_000,
      () => undefined,
      (guard) => {
        const child = spawn(
          process.execPath,
          [
            '-e',
            "console.log('up'); console.error('pg: read ECONNRESET'); setTimeout(() => process.exit(3), 200)",
          ],
          { stdio: ['ignore', 'pipe', 'pipe'] },
        );
        guard.watchChild('fake-service', child);
        return forever();
      },
    );
    expect(performance.now() - started).toBeLessThan(5000);
    expect(report.holds).toBe(false);
    const [problem] = report.problems;
    expect(problem).toMatch(/^fake-service \(pid \d+\) exited with code 3; last log lines:/);
    expect(problem).toContain('pg: read ECONNRESET');
    expect(formatTable([report])).toMatch(/no: fake-service \(pid \d+\) exited with code 3/);
  });

  it('a process the scenario kills on purpose is no failure', async () => {
    const report = await guardScenario(
      'kills',
      10_000,
      () => undefined,
      async (guard) => {
        const child = spawn(process.execPath, ['-e', 'setInterval(() => undefined, 1000)'], {
          stdio: 'pipe',
        });
        guard.watchChild('fake-signer', child);
        const closed = new Promise((r) => child.once('close', r));
        if (child.pid === undefined) throw new Error('not started');
        guard.expectExit(child.pid);
        child.kill('SIGKILL');
        await closed;
        // Let the exit be seen before the body ends.
        await new Promise((r) => setTimeout(r, 50));
        return holding;
      },
    );
    expect(report.problems).toEqual([]);
    expect(report.holds).toBe(true);
  });

  it("the audit's retries stop when their budget is spent: the rest is unresolved, not retried", async () => {
    const tried: string[] = [];
    const started = performance.now();
    const outcome = await retryWithinBudget(
      ['a', 'b', 'c'],
      (item): Promise<Attempt<number>> => {
        tried.push(item);
        return Promise.resolve({ value: 503, done: false, waitMs: 5000 });
      },
      { budgetMs: 300, maxAttempts: 10, maxWaitMs: 5000 },
      (ms) => new Promise((r) => setTimeout(r, ms)),
    );
    expect(performance.now() - started).toBeLessThan(1000);
    expect(outcome.unresolved).toEqual(['a', 'b', 'c']);
    // The first tried, then a wait cut to the budget, and no more tries (even when the timer fires early).
    expect(tried).toEqual(['a']);
    // A timer that fires early (here: at once) buys no other try.
    const early: string[] = [];
    const hurried = await retryWithinBudget(
      ['a', 'b'],
      (item): Promise<Attempt<number>> => {
        early.push(item);
        return Promise.resolve({ value: 503, done: false, waitMs: 5000 });
      },
      { budgetMs: 300, maxAttempts: 10, maxWaitMs: 5000 },
      () => Promise.resolve(),
    );
    expect(early).toEqual(['a']);
    expect(hurried.unresolved).toEqual(['a', 'b']);
  });

  it('an item that succeeds within the budget is resolved with its last answer', async () => {
    let calls = 0;
    const outcome = await retryWithinBudget(
      ['a'],
      (): Promise<Attempt<number>> => {
        calls += 1;
        return Promise.resolve({ value: calls === 2 ? 200 : 503, done: calls === 2, waitMs: 10 });
      },
      { budgetMs: 5000, maxAttempts: 10, maxWaitMs: 5000 },
      (ms) => new Promise((r) => setTimeout(r, ms)),
    );
    expect(outcome.unresolved).toEqual([]);
    expect(outcome.last.get('a')).toBe(200);
  });
});
