import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { defineRequest } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { uniqueBusPrefix } from '@esign/testing';
import { connectBus, endpoint, NotDeliveredError, type Bus } from '../src';

const Echo = defineRequest('echo.do', z.object({ n: z.number() }), z.object({ n: z.number() }));

const freePort = () =>
  new Promise<number>((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });

/** Resolves once something accepts connections on the port. */
const accepting = (port: number) =>
  new Promise<void>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.end();
      resolve();
    }).on('error', reject);
  });

// A nats-server of this test's own, so that it can be stopped without touching the shared one.
let dir: string;
let port: number;
let nats: ChildProcess | undefined;
const startNats = async () => {
  nats = spawn('nats-server', ['-a', '127.0.0.1', '-p', String(port), '-sd', dir], { stdio: 'ignore' });
  await vi.waitFor(() => accepting(port), { timeout: 10_000, interval: 20 });
};
const stopNats = async () => {
  const child = nats;
  nats = undefined;
  if (!child || child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
};

let responder: Bus;
let caller: Bus;
const lines: string[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bus-reconnect-'));
  port = await freePort();
  await startNats();
  const url = `nats://127.0.0.1:${port}`;
  const prefix = uniqueBusPrefix('reconnect');
  const logger = createLogger({ service: 'bus-test', level: 'info', write: (l) => lines.push(l) });
  responder = await connectBus({ url, name: 'echo', prefix, logger, timeoutMs: 10_000 });
  caller = await connectBus({ url, name: 'caller', prefix, logger, timeoutMs: 10_000 });
  await responder.serve([endpoint(Echo, ({ n }) => Promise.resolve({ n }))]);
});

afterAll(async () => {
  await caller?.drain().catch(() => undefined);
  await responder?.drain().catch(() => undefined);
  await stopNats();
  await rm(dir, { recursive: true, force: true });
});

describe('a request while NATS is down', () => {
  it('is refused at once as not delivered instead of waiting its timeout, and requests work again once NATS is back', async () => {
    expect(await caller.request(Echo, { n: 1 })).toEqual({ n: 1 });
    await stopNats();
    await expect
      .poll(() => lines.filter((l) => l.includes('message bus disconnected')).length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(2);

    const started = performance.now();
    const err = await caller.request(Echo, { n: 2 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotDeliveredError);
    expect(err).toMatchObject({ code: 'unavailable', message: 'the message bus is unavailable' });
    // Not the 10 s timeout: nats.js would have buffered it and sent it on reconnecting.
    expect(performance.now() - started).toBeLessThan(500);

    await startNats();
    await expect
      .poll(() => lines.filter((l) => l.includes('message bus reconnected')).length, { timeout: 10_000 })
      .toBeGreaterThanOrEqual(2);
    expect(await caller.request(Echo, { n: 3 })).toEqual({ n: 3 });
  });
});
