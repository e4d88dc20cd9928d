import { describe, expect, it } from 'vitest';
import { createLogger } from './logger';
import { createOutageLog } from './outage-log';

describe('createOutageLog', () => {
  it('writes one line when the outage starts and one when it ends, with its length', () => {
    const lines: Record<string, unknown>[] = [];
    let clock = 1000;
    const sut = createOutageLog({
      logger: createLogger({
        service: 't',
        write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
      }),
      dependency: 'database',
      now: () => clock,
    });
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

  it('says what happened, not the SQL and parameters of the query that met it', () => {
    const lines: Record<string, unknown>[] = [];
    const sut = createOutageLog({
      logger: createLogger({
        service: 't',
        write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
      }),
      dependency: 'database',
    });
    const driverError = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    sut.down(
      new Error('Failed query: select * from accounts where email = $1\nparams: ada@example.com', {
        cause: driverError,
      }),
    );
    expect(lines).toEqual([expect.objectContaining({ error: 'connect ECONNREFUSED 127.0.0.1:5432' })]);
  });
});
