import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineRequest } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { testNatsUrl, uniqueBusPrefix } from '@esign/testing';
import { connectBus, endpoint, type Bus } from '../src';

const Read = defineRequest('outage.read', z.object({}), z.object({ ok: z.boolean() }));

class DatabaseDown extends Error {
  override readonly name = 'DatabaseDown';
}

let server: Bus;
let client: Bus;
let down = true;
const lines: { level: string; msg: string; err?: unknown; failures?: number }[] = [];

beforeAll(async () => {
  const url = await testNatsUrl();
  const prefix = uniqueBusPrefix('outage');
  const logger = createLogger({
    service: 'bus-outage-test',
    level: 'info',
    write: (line) => void lines.push(JSON.parse(line) as (typeof lines)[number]),
  });
  server = await connectBus({ url, name: 'reader', prefix, logger, timeoutMs: 10_000 });
  client = await connectBus({ url, name: 'caller', prefix, logger, timeoutMs: 10_000 });
  await server.serve(
    [
      endpoint(Read, () =>
        down
          ? Promise.reject(new DatabaseDown('Connection terminated unexpectedly'))
          : Promise.resolve({ ok: true }),
      ),
    ],
    { unavailable: (err) => (err instanceof DatabaseDown ? 'the database is unavailable' : undefined) },
  );
});

afterAll(async () => {
  await client?.drain();
  await server?.drain();
});

describe('serve with unavailable', () => {
  it('logs an outage its requests meet once when it starts and once when it ends, without stacks', async () => {
    lines.length = 0;
    for (let i = 0; i < 20; i++) {
      await expect(client.request(Read, {})).rejects.toMatchObject({ code: 'unavailable' });
    }
    down = false;
    await expect(client.request(Read, {})).resolves.toEqual({ ok: true });
    await expect(client.request(Read, {})).resolves.toEqual({ ok: true });
    const outage = () => lines.filter((l) => l.msg.startsWith('dependency'));
    // The outage is over once the dependency has stayed up for the settling time (1 s).
    await vi.waitFor(
      () =>
        expect(outage().map((l) => `${l.level} ${l.msg}`)).toEqual([
          'warn dependency unavailable',
          'info dependency available again',
        ]),
      5000,
    );
    expect(outage()[1]?.failures).toBe(20);
    expect(outage().some((l) => l.err !== undefined)).toBe(false);
  });
});
