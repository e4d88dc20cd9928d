import { describe, expect, it } from 'vitest';
import { retryWhileDown } from '../src/index';

/** A write failing with `errors` in turn, then answering 'done'; a clock the waits move on. */
const world = (errors: Error[]) => {
  let now = 0;
  let calls = 0;
  const waits: number[] = [];
  return {
    write: () => {
      calls += 1;
      const err = errors.shift();
      return err ? Promise.reject(err) : Promise.resolve('done');
    },
    options: (withinMs: number) => ({
      withinMs,
      now: () => now,
      sleep: (ms: number) => {
        waits.push(ms);
        now += ms;
        return Promise.resolve();
      },
    }),
    waits,
    calls: () => calls,
  };
};

const down = () => new Error('Connection terminated unexpectedly');
const terminated = () =>
  Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });

describe('retryWhileDown', () => {
  it('writes once the database is back, waiting longer each time', async () => {
    const w = world([down(), terminated(), down()]);
    await expect(retryWhileDown(w.write, w.options(60_000))).resolves.toBe('done');
    expect(w.calls()).toBe(4);
    expect(w.waits).toEqual([100, 200, 400]);
  });

  it('waits at most 2 s between tries', async () => {
    const w = world(Array.from({ length: 8 }, down));
    await retryWhileDown(w.write, w.options(60_000));
    expect(w.waits).toEqual([100, 200, 400, 800, 1600, 2000, 2000, 2000]);
  });

  it('throws an error that is no outage at once', async () => {
    const w = world([new Error('duplicate key value violates unique constraint')]);
    await expect(retryWhileDown(w.write, w.options(60_000))).rejects.toThrow(/duplicate key/);
    expect(w.calls()).toBe(1);
  });

  it('gives up when the next wait would pass withinMs, with the outage error', async () => {
    const w = world(Array.from({ length: 20 }, down));
    await expect(retryWhileDown(w.write, w.options(1_000))).rejects.toThrow(/Connection terminated/);
    expect(w.waits).toEqual([100, 200, 400]);
    expect(w.calls()).toBe(4);
  });
});
