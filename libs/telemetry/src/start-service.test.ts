import { describe, expect, it } from 'vitest';
import { healthServer } from './health';
import { startService, type Resource } from './start-service';

/** A resource that writes what happens to it in `events`. */
const recorded = (
  events: string[],
  name: string,
  options: { failStart?: boolean; failStop?: boolean; ready?: () => boolean } = {},
): Resource<string> => ({
  name,
  start: () => {
    if (options.failStart) return Promise.reject(new Error(`${name} cannot start`));
    events.push(`start ${name}`);
    return Promise.resolve(name);
  },
  stop: (value) => {
    events.push(`stop ${value}`);
    return options.failStop ? Promise.reject(new Error(`${name} cannot stop`)) : Promise.resolve();
  },
  ready: options.ready,
});

describe('startService', () => {
  it('starts the resources in order, hands each one’s value on, and stops them in reverse', async () => {
    const events: string[] = [];
    const sut = await startService(async (use) => {
      const database = await use(recorded(events, 'database'));
      const bus = await use(recorded(events, 'bus'));
      await use(recorded(events, `handlers on ${bus} and ${database}`));
      return { answer: 42 };
    });

    expect(sut.answer).toBe(42);
    expect(events).toEqual(['start database', 'start bus', 'start handlers on bus and database']);

    await sut.stop();
    expect(events.slice(3)).toEqual(['stop handlers on bus and database', 'stop bus', 'stop database']);
  });

  it('stops once however often stop is called', async () => {
    const events: string[] = [];
    const sut = await startService(async (use) => {
      await use(recorded(events, 'bus'));
      return {};
    });

    await Promise.all([sut.stop(), sut.stop()]);
    await sut.stop();

    expect(events).toEqual(['start bus', 'stop bus']);
  });

  it('stops what already started, in reverse, when a resource fails to start, and rethrows its error', async () => {
    const events: string[] = [];

    await expect(
      startService(async (use) => {
        await use(recorded(events, 'database'));
        await use(recorded(events, 'bus'));
        await use(recorded(events, 'health server', { failStart: true }));
        await use(recorded(events, 'never'));
        return {};
      }),
    ).rejects.toThrow('health server cannot start');

    expect(events).toEqual(['start database', 'start bus', 'stop bus', 'stop database']);
  });

  it('stops the others when one fails to stop, and reports that one', async () => {
    const events: string[] = [];
    const sut = await startService(async (use) => {
      await use(recorded(events, 'database'));
      await use(recorded(events, 'bus', { failStop: true }));
      await use(recorded(events, 'timer'));
      return {};
    });

    await expect(sut.stop()).rejects.toMatchObject({
      message: 'could not stop bus',
      cause: expect.objectContaining({ message: 'bus cannot stop' }) as unknown,
    });
    expect(events.slice(3)).toEqual(['stop timer', 'stop bus', 'stop database']);
  });

  it('is ready when every resource started so far is, and says so on /readyz', async () => {
    let busConnected = true;
    const sut = await startService(async (use, ready) => {
      await use({ name: 'database', start: () => undefined, ready: () => Promise.resolve(true) });
      await use({ name: 'bus', start: () => undefined, ready: () => busConnected });
      await use({ name: 'timer', start: () => undefined });
      const health = await use(healthServer({ port: 0, ready }));
      return { healthPort: health.port, ready };
    });
    const readyz = () => fetch(`http://127.0.0.1:${sut.healthPort}/readyz`).then((res) => res.status);

    try {
      expect(await sut.ready()).toBe(true);
      expect(await readyz()).toBe(200);

      busConnected = false;
      expect(await sut.ready()).toBe(false);
      expect(await readyz()).toBe(503);
    } finally {
      await sut.stop();
    }
    await expect(readyz()).rejects.toThrow();
  });
});
