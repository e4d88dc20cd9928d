import { connect as connectTcp } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, endpoint, type Bus } from '@esign/bus';
import { KeyVerify, ServiceError } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { startTestS3, testNatsUrl, uniqueBusPrefix, type TestS3 } from '@esign/testing';
import type { RunningGateway } from '../src/start';
import { startTestGateway } from './helpers';

/**
 * The gateway's edge on its own (real NATS and S3 protocol, no other services): limits that hold
 * before authentication, and malformed requests that never reach an operation.
 */
let s3: TestS3;
let keyService: Bus;
let sut: RunningGateway;
let lookups = 0;

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  const prefix = uniqueBusPrefix('gw');
  s3 = await startTestS3();
  const logger = createLogger({ service: 'gateway-test', level: 'error' });
  // A key service that knows no key, and counts how often it is asked.
  keyService = await connectBus({ url: natsUrl, name: 'key', prefix, logger, timeoutMs: 5000 });
  await keyService.serve([
    endpoint(KeyVerify, () => {
      lookups += 1;
      return Promise.reject(new ServiceError('unauthenticated', 'unknown key'));
    }),
  ]);
  sut = await startTestGateway(
    { natsUrl, prefix, s3 },
    {
      AUTH_FAILURES_PER_MINUTE: '8',
      SANDBOX_RATE_LIMIT_PER_MINUTE: '3',
      VERIFY_RATE_LIMIT_PER_MINUTE: '2',
      // Sandbox and auth-failure limits are per client IP: this test claims an address of its own.
      TRUST_PROXY: '1',
    },
    logger,
  );
});

afterAll(async () => {
  await sut?.stop();
  await keyService?.drain();
  await s3?.stop();
});

const from = (ip: string, headers: Record<string, string> = {}) => ({ 'X-Forwarded-For': ip, ...headers });

/** Send raw bytes and read the whole answer (the connection is closed by the server). */
const raw = (request: string | Buffer): Promise<string> =>
  new Promise((resolve, reject) => {
    const { port } = new URL(sut.url);
    const socket = connectTcp(Number(port), '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
    socket.write(request);
  });

const statusAndBody = (answer: string) => {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1]);
  const body = answer.slice(answer.indexOf('\r\n\r\n') + 4);
  return { status, body: JSON.parse(body) as { error?: unknown } };
};

describe('limits before authentication', () => {
  it('asks the key service once for an unknown key, and answers repeats of it from memory', async () => {
    const key = `svc_live_${'q'.repeat(32)}`;
    const before = lookups;
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${sut.url}/api/v1/documents`, {
        headers: from('198.51.100.1', { Authorization: `Bearer ${key}` }),
      });
      expect(res.status).toBe(401);
      await res.body?.cancel();
    }
    expect(lookups - before).toBe(1);
  });

  it('refuses an address that keeps failing to authenticate, before looking its keys up', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) {
      const res = await fetch(`${sut.url}/api/v1/documents`, {
        headers: from('198.51.100.2', { Authorization: `Bearer svc_live_${String(i).padStart(32, 'x')}` }),
      });
      statuses.push(res.status);
      if (res.status === 429) expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      await res.body?.cancel();
    }
    expect(statuses.slice(0, 8)).toEqual(Array(8).fill(401));
    expect(statuses.slice(8)).toEqual(Array(4).fill(429));
    // Another address is not affected.
    const other = await fetch(`${sut.url}/api/v1/documents`, { headers: from('198.51.100.3') });
    expect(other.status).toBe(401);
    await other.body?.cancel();
  });

  it('limits the sandbox per client IP', async () => {
    const call = (ip: string) =>
      fetch(`${sut.url}/api/v1/sandbox/sign`, {
        method: 'POST',
        headers: from(ip, {
          Authorization: 'Bearer svc_sandbox_public_demo',
          'Content-Type': 'application/json',
        }),
        body: JSON.stringify({ document_url: 'https://example.com/a.pdf' }),
      });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await call('198.51.100.4');
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect((await call('198.51.100.5')).status).toBe(200);
  });

  it('limits public verification per client IP, before reading the upload', async () => {
    const call = (ip: string) => {
      const form = new FormData();
      // Not a PDF: refused (400) by the upload itself, so no signer is needed behind this gateway.
      form.append('file', new Blob([new TextEncoder().encode('plain text')]), 'a.txt');
      return fetch(`${sut.url}/api/v1/verify`, { method: 'POST', headers: from(ip), body: form });
    };
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await call('198.51.100.6');
      statuses.push(res.status);
      await res.body?.cancel();
    }
    expect(statuses).toEqual([400, 400, 429, 429]);
    expect((await call('198.51.100.7')).status).toBe(400);
  });
});

describe('malformed requests get a JSON error with a 4xx status', () => {
  it.each([
    [
      'JSON in a charset other than UTF-8',
      '/api/v1/sandbox/sign',
      { 'Content-Type': 'application/json; charset=latin1' },
    ],
    [
      'an unknown Content-Encoding',
      '/api/v1/sandbox/sign',
      { 'Content-Type': 'application/json', 'Content-Encoding': 'zstd-x' },
    ],
    [
      'a body that does not match its Content-Encoding',
      '/api/v1/sandbox/sign',
      { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' },
    ],
  ])('%s', async (_name, path, headers: Record<string, string>) => {
    const res = await fetch(`${sut.url}${path}`, {
      method: 'POST',
      headers: from('198.51.100.9', { Authorization: 'Bearer svc_sandbox_public_demo', ...headers }),
      body: '{"document_url":"https://example.com/a.pdf"}',
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    const body = (await res.json()) as { error?: unknown };
    expect(typeof body.error).toBe('string');
  });

  it('a path that is not valid percent-encoding', async () => {
    const res = await fetch(`${sut.url}/api/v1/documents/%ZZ`, { headers: from('198.51.100.10') });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'the request path is not valid percent-encoding' });
  });

  it.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n', 400],
    ['a NUL in a header', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u0000b\r\n\r\n', 400],
    [
      'conflicting Content-Length headers',
      'POST /api/v1/sandbox/sign HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
      400,
    ],
    [
      'a header block over 16 KB',
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(17_000)}\r\n\r\n`,
      431,
    ],
  ])("%s (refused by Node's HTTP parser)", async (_name, request, status) => {
    const answer = statusAndBody(await raw(request));
    expect(answer.status).toBe(status);
    expect(typeof answer.body.error).toBe('string');
  });
});
