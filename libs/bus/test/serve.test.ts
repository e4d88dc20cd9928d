import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineRequest, ServiceError } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { testNatsUrl, uniqueBusPrefix } from '@esign/testing';
import { connectBus, endpoint, type Bus } from '../src';

const Work = defineRequest(
  'work.do',
  z.object({ n: z.number().int() }),
  z.object({ n: z.number().int(), concurrent: z.number().int() }),
);

let server: Bus;
let client: Bus;

beforeAll(async () => {
  const url = await testNatsUrl();
  const prefix = uniqueBusPrefix('bus');
  const logger = createLogger({ service: 'bus-test', level: 'error' });
  server = await connectBus({ url, name: 'worker', prefix, logger, timeoutMs: 10_000 });
  client = await connectBus({ url, name: 'caller', prefix, logger, timeoutMs: 10_000 });
  let running = 0;
  await server.serve(
    [
      endpoint(Work, async ({ n }) => {
        running += 1;
        const concurrent = running;
        await new Promise((r) => setTimeout(r, 30));
        running -= 1;
        return { n, concurrent };
      }),
    ],
    { maxConcurrent: 2 },
  );
});

afterAll(async () => {
  await client?.drain();
  await server?.drain();
});

describe('serve with maxConcurrent', () => {
  it('handles at most that many requests at once and answers every one, in order of arrival', async () => {
    const replies = await Promise.all(Array.from({ length: 8 }, (_, n) => client.request(Work, { n })));
    expect(replies.map((r) => r.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(Math.max(...replies.map((r) => r.concurrent))).toBe(2);
    // The limit is reached, not merely respected by chance.
    expect(replies.filter((r) => r.concurrent === 2).length).toBeGreaterThanOrEqual(3);
  });

  it('frees its turn when a handler fails', async () => {
    const failing = defineRequest('work.fail', z.object({}), z.object({}));
    await server.serve(
      [
        endpoint(failing, () => {
          throw new ServiceError('unavailable', 'a dependency is down');
        }),
      ],
      { maxConcurrent: 1 },
    );
    for (let i = 0; i < 3; i++) {
      await expect(client.request(failing, {})).rejects.toMatchObject({
        code: 'unavailable',
        message: 'a dependency is down',
      });
    }
  });

  it('refuses a request its contract does not accept as invalid_argument naming the field, before sending it', async () => {
    await expect(client.request(Work, { n: 1.5 })).rejects.toMatchObject({
      name: 'ServiceError',
      code: 'invalid_argument',
      field: 'n',
    });
  });
});
