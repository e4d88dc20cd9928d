import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from './logger';
import { createOutageLog } from './outage-log';

afterEach(() => {
  vi.useRealTimers();
});

/** The outage log of `database`, and the lines it wrote. */
const outageLog = (options: { now?: () => number; settleMs?: number } = {}) => {
  const lines: Record<string, unknown>[] = [];
  const sut = createOutageLog({
    logger: createLogger({
      service: 't',
      write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
    }),
    dependency: 'database',
    ...options,
  });
  return { lines, sut };
};

describe('createOutageLog', () => {
  it('writes one line when the outage starts and one when it ends, with its length', () => {
    let clock = 1000;
    const { lines, sut } = outageLog({ now: () => clock, settleMs: 0 });
    sut.up();
    for (let i = 0; i < 100; i++) sut.down(new Error('Connection terminated unexpectedly'));
    expect(sut.isDown).toBe(true);
    clock += 2500;
    sut.up();
    sut.up();
    expect(sut.isDown).toBe(false);
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        msg: 'dependency unavailable',
        dependency: 'database',
        error: 'Connection terminated unexpectedly',
      }),
      expect.objectContaining({
        level: 'info',
        msg: 'dependency available again',
        outageMs: 2500,
        failures: 100,
      }),
    ]);
  });

  it('ends an outage only once the dependency has stayed up for the settling time', () => {
    vi.useFakeTimers();
    const { lines, sut } = outageLog({ settleMs: 1000 });
    // A server ending a pool's connections: their errors come one by one, a new connection between them.
    sut.down(new Error('terminating connection due to administrator command'));
    vi.advanceTimersByTime(40);
    sut.up();
    expect(sut.isDown).toBe(false);
    vi.advanceTimersByTime(10);
    sut.down(new Error('Connection terminated unexpectedly'));
    expect(sut.isDown).toBe(true);
    vi.advanceTimersByTime(250);
    sut.up();
    sut.up();
    vi.advanceTimersByTime(999);
    expect(lines.map((line) => line.msg)).toEqual(['dependency unavailable']);
    vi.advanceTimersByTime(1);
    expect(lines).toEqual([
      expect.objectContaining({ level: 'warn', msg: 'dependency unavailable' }),
      // Its length runs to the success that ended it, not to the end of the settling time.
      expect.objectContaining({
        level: 'info',
        msg: 'dependency available again',
        outageMs: 300,
        failures: 2,
      }),
    ]);
    // The next failure is a new outage.
    sut.down(new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    expect(lines).toHaveLength(3);
  });

  it('says what happened, not the SQL and parameters of the query that met it', () => {
    const { lines, sut } = outageLog();
    const driverError = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    sut.down(
      new Error('Failed query: select * from accounts where email = $1\nparams: ada@example.com', {
        cause: driverError,
      }),
    );
    expect(lines).toEqual([expect.objectContaining({ error: 'connect ECONNREFUSED 127.0.0.1:5432' })]);
  });
});
