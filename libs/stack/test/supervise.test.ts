import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestS3, testNatsUrl, uniqueBusPrefix, type TestS3 } from '@esign/testing';
import { startServices, type RestartEvent, type RunningStack } from '../src/index';

let s3: TestS3;
let sut: RunningStack;
const restarts: RestartEvent[] = [];

beforeAll(async () => {
  s3 = await startTestS3();
  sut = await startServices({
    services: ['template'],
    natsUrl: await testNatsUrl(),
    databaseUrl: process.env.DATABASE_URL ?? 'postgres://unused',
    s3: { ...s3, bucket: 'esign' },
    busPrefix: uniqueBusPrefix('sup'),
    gatewayPort: 0,
    env: { LOG_LEVEL: 'error' },
    supervise: { onRestart: (event) => restarts.push(event) },
  });
}, 60_000);

afterAll(async () => {
  await sut?.stop();
  await s3?.stop();
});

/** The pid of the template process once it is another than `previous` (a restart took its place). */
const restartedAfter = (previous: number | undefined) =>
  vi.waitFor(
    () => {
      const pid = sut.pids().template?.[0];
      if (pid === undefined || pid === previous) throw new Error('not restarted yet');
      return pid;
    },
    { timeout: 20_000, interval: 50 },
  );

describe('a supervised stack', () => {
  it('restarts a service process that died, says so, and backs off when it dies again at once', async () => {
    const first = sut.pids().template?.[0];
    expect(first).toBeTypeOf('number');
    process.kill(first ?? 0, 'SIGKILL');
    const second = await restartedAfter(first);
    expect(restarts[0]).toEqual({ service: 'template', exit: 'SIGKILL', delayMs: 1000, attempt: 1 });

    process.kill(second, 'SIGKILL');
    await restartedAfter(second);
    expect(restarts[1]).toEqual({ service: 'template', exit: 'SIGKILL', delayMs: 2000, attempt: 2 });
  }, 60_000);

  it('does not restart what it was told to stop', async () => {
    const before = restarts.length;
    const pid = sut.pids().template?.[0] ?? 0;
    // Resolves once the process has exited, after the supervisor heard of the exit: a restart would
    // have been announced (and the pid dropped) by then, not after its back-off.
    await sut.stopService('template');
    expect(restarts.length).toBe(before);
    expect(sut.pids().template).toEqual([pid]);
    // The stopped process is gone, and nothing took its place.
    expect(() => process.kill(pid, 0)).toThrow();
  });
});
