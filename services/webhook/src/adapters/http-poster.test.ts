import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postPinned } from './http-poster';

let server: Server;
let port = 0;
const seen: { host: string | undefined; body: string }[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ host: req.headers.host, body: Buffer.concat(chunks).toString() });
      // Never answered: the attempt can only end by its own timeout (afterAll closes the connection).
      if (req.url === '/slow') return;
      if (req.url === '/big') return void res.end('x'.repeat(100_000));
      res.statusCode = 202;
      res.end('accepted');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.3', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const address = { address: '127.0.0.3', family: 4 as const };
const post = (path: string, timeoutMs = 1000, maxBytes = 4096) =>
  postPinned({
    // A name that cannot resolve: the request can only reach the server through the checked address.
    url: new URL(`http://receiver.invalid:${port}${path}`),
    address,
    headers: { 'content-type': 'application/json' },
    body: '{"a":1}',
    timeoutMs,
    maxBytes,
  });

describe('postPinned', () => {
  it('connects to the checked address without resolving the name again, with the URL’s Host', async () => {
    const outcome = await post('/hooks');
    expect(outcome).toMatchObject({ statusCode: 202, error: null });
    expect(outcome.response?.toString()).toBe('accepted');
    expect(seen.at(-1)).toEqual({ host: `receiver.invalid:${port}`, body: '{"a":1}' });
  });

  it('reads at most maxBytes of the answer', async () => {
    const outcome = await post('/big', 1000, 4096);
    expect(outcome.statusCode).toBe(200);
    expect(outcome.response?.length).toBe(4096);
  });

  it('gives up at the timeout', async () => {
    const outcome = await post('/slow', 300);
    expect(outcome).toMatchObject({ statusCode: null, error: 'timed out after 300 ms' });
    expect(outcome.latencyMs).toBeGreaterThanOrEqual(290);
    expect(outcome.latencyMs).toBeLessThan(1500);
  });

  it('reports a refused connection', async () => {
    const outcome = await postPinned({
      url: new URL('http://receiver.invalid:1/'),
      address,
      headers: {},
      body: '',
      timeoutMs: 1000,
      maxBytes: 10,
    });
    expect(outcome.statusCode).toBeNull();
    expect(outcome.error).toMatch(/ECONNREFUSED/);
  });
});
