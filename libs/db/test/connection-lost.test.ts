import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@esign/testing';
import { createLogger } from '@esign/telemetry';
import { createDatabase } from '../src';

let database: TestDatabase;

beforeAll(async () => {
  database = await createTestDatabase('db_lost');
});
afterAll(() => database.drop());

describe('createDatabase', () => {
  it('survives the server ending a checked-out connection, and logs the outage once', async () => {
    const lines: { level: string; msg: string }[] = [];
    const logger = createLogger({
      service: 'test',
      write: (line) => lines.push(JSON.parse(line) as { level: string; msg: string }),
    });
    const sut = createDatabase({ url: database.url, schema: {}, applicationName: 'lost-test', logger });
    try {
      // Held outside any query, as a sweep holds its advisory-lock session: the pool does not listen
      // to it, and without a listener of its own its `error` event would end the process.
      const held = await sut.pool.connect();
      const lost = new Promise<void>((resolve) => held.once('end', () => resolve()));
      await database.setAvailable(false);
      await lost;
      held.release();
      await expect(sut.pool.query('select 1')).rejects.toThrow();
      await database.setAvailable(true);
      await expect(sut.pool.query('select 1 as ok')).resolves.toMatchObject({ rows: [{ ok: 1 }] });
      // The outage is over once the database has stayed up for the settling time (1 s).
      await vi.waitFor(
        () =>
          expect(lines.map((l) => `${l.level} ${l.msg}`)).toEqual([
            'warn dependency unavailable',
            'info dependency available again',
          ]),
        5000,
      );
    } finally {
      await database.setAvailable(true);
      await sut.close();
    }
  });
});
