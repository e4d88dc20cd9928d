import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectBus, endpoint, type Bus } from '@esign/bus';
import {
  DocumentFindByIdempotencyKey,
  DocumentQuotaReserve,
  KeyVerify,
  PdfSign,
  ServiceError,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import {
  makePdf,
  parseSamples,
  promtoolCheckMetrics,
  scrapeMetrics,
  startTestS3,
  valueOf,
  testNatsUrl,
  uniqueBusPrefix,
  type Sample,
  type TestS3,
} from '@esign/testing';
import { SNIFF_BYTES } from '../src/http/sniff';
import type { RunningGateway } from '../src/start';
import { startTestGateway } from './helpers';

/**
 * The edge's metrics, read from the gateway's /metrics (real NATS and S3 protocol; the key service is
 * a stand-in that knows one key, whose month is used up): every request under its route template,
 * each refusal where it happens, uploads in flight, bytes in and out, and nothing of a path in a label.
 */
const KEY = `svc_live_${'m'.repeat(32)}`;
const SECRET_TOKEN = `tok${randomUUID().replaceAll('-', '')}`;
const SECRET_AUDIT_ID = 'ESIGN-S3CR-3T00-0001';
let s3: TestS3;
let services: Bus;
let sut: RunningGateway;
let signRequests = 0;

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  const prefix = uniqueBusPrefix('gwm');
  s3 = await startTestS3();
  const logger = createLogger({ service: 'gateway-test', level: 'error' });
  services = await connectBus({ url: natsUrl, name: 'key', prefix, logger, timeoutMs: 5000 });
  await services.serve([
    endpoint(KeyVerify, () =>
      Promise.resolve({
        accountId: randomUUID(),
        keyId: randomUUID(),
        email: 'a@example.com',
        plan: 'pro' as const,
        apiAccess: true,
      }),
    ),
    endpoint(DocumentQuotaReserve, () =>
      Promise.reject(new ServiceError('permission_denied', 'this month is used up')),
    ),
    endpoint(DocumentFindByIdempotencyKey, () => Promise.reject(new ServiceError('not_found', 'none'))),
    endpoint(PdfSign, () => {
      signRequests += 1;
      return Promise.reject(new ServiceError('internal', 'the signer must not be asked'));
    }),
  ]);
  sut = await startTestGateway(
    { natsUrl, prefix, s3 },
    {
      S3_BUCKET: 'esign',
      KEY_CACHE_TTL_MS: '0',
      // A file reaches the limit in the chunk that completes the bytes its type is read from.
      SIGN_MAX_FILE_BYTES: String(SNIFF_BYTES),
      SANDBOX_RATE_LIMIT_PER_MINUTE: '2',
      AUTH_FAILURES_PER_MINUTE: '2',
      // Per-IP limits: each test claims an address of its own.
      TRUST_PROXY: '1',
    },
    logger,
  );
});

afterAll(async () => {
  await sut?.stop();
  await services?.drain();
  await s3?.stop();
});

const scrape = async () => {
  const text = await scrapeMetrics(sut.healthPort);
  return { text, samples: parseSamples(text) };
};

const uploadsActive = async () => valueOf((await scrape()).samples, 'esign_http_uploads_active');

const DURATION = 'http_server_request_duration_count';
const REFUSED = 'esign_http_refused_total';
const BYTES_IN = 'http_server_request_body_size_sum';
const BYTES_OUT = 'http_server_response_body_size_sum';

/** How a metric's sum moved across `act`. */
const change = async (act: () => Promise<void>, read: (samples: Sample[]) => number): Promise<number> => {
  const before = read((await scrape()).samples);
  await act();
  return read((await scrape()).samples) - before;
};

const signForm = (file: Buffer) => {
  const form = new FormData();
  for (const [k, v] of Object.entries({ signerName: 'Ada', signerEmail: 'ada@example.com', mode: 'type' }))
    form.append(k, v);
  form.append('typedName', 'Ada');
  form.append('file', new Blob([new Uint8Array(file)], { type: 'application/pdf' }), 'a.pdf');
  return form;
};

const sign = (file: Buffer) =>
  fetch(`${sut.url}/api/v1/sign`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${KEY}` },
    body: signForm(file),
  });

const sandbox = (ip: string, body: unknown) =>
  fetch(`${sut.url}/api/v1/sandbox/sign`, {
    method: 'POST',
    headers: {
      Authorization: 'Bearer svc_sandbox_public_demo',
      'Content-Type': 'application/json',
      'X-Forwarded-For': ip,
    },
    body: JSON.stringify(body),
  });

describe('the edge at /metrics', () => {
  it('counts requests by route template, method and status class, never by path', async () => {
    const samples = async () => (await scrape()).samples;
    const before = await samples();
    const doc = await fetch(`${sut.url}/api/v1/documents/${SECRET_AUDIT_ID}`);
    expect(doc.status).toBe(401);
    await doc.body?.cancel();
    const link = await fetch(`${sut.url}/s/${SECRET_TOKEN}`);
    await link.body?.cancel();
    const nowhere = await fetch(`${sut.url}/nowhere/${SECRET_TOKEN}`);
    expect(nowhere.status).toBe(404);
    await nowhere.body?.cancel();
    const verify = await fetch(`${sut.url}/verify/${SECRET_AUDIT_ID}`);
    await verify.body?.cancel();
    const after = await samples();
    const moved = (labels: Record<string, string>) =>
      valueOf(after, DURATION, labels) - valueOf(before, DURATION, labels);

    expect(
      moved({
        http_request_method: 'GET',
        http_route: '/api/v1/documents/:auditId',
        http_response_status_class: '4xx',
      }),
    ).toBe(1);
    expect(moved({ http_route: '/s/:token', http_request_method: 'GET' })).toBe(1);
    expect(moved({ http_route: 'unmatched', http_response_status_class: '4xx' })).toBe(1);
    expect(moved({ http_route: '/verify/:auditId' })).toBe(1);
    const text = (await scrape()).text;
    expect(text).not.toContain(SECRET_TOKEN);
    expect(text).not.toContain(SECRET_AUDIT_ID);
    expect(text).not.toContain(KEY);
    // Only templates as routes: a parameter is named, never filled in.
    const routes = new Set(after.map((s) => s.labels.http_route).filter((r) => r !== undefined));
    for (const route of routes) expect(route).toMatch(/^(unmatched|\/[a-zA-Z0-9/:._*-]*)$/);
  });

  it('counts a request the sandbox limit refuses, under its route, and the bytes in and out of the others', async () => {
    const route = { http_route: '/api/v1/sandbox/sign' };
    const body = { document_url: 'https://example.com/contract.pdf' };
    const sent = Buffer.byteLength(JSON.stringify(body));
    let received = 0;
    const statuses: number[] = [];
    const refused = await change(
      async () => {
        for (let i = 0; i < 3; i += 1) {
          const res = await sandbox('10.9.0.1', body);
          statuses.push(res.status);
          received += (await res.arrayBuffer()).byteLength;
        }
      },
      (s) => valueOf(s, REFUSED, { ...route, reason: 'rate_limit' }),
    );
    expect(statuses).toEqual([200, 200, 429]);
    expect(refused).toBe(1);
    const { samples } = await scrape();
    // Bytes read from the bodies, as read (the refused one was never read), and every byte written.
    expect(valueOf(samples, BYTES_IN, route)).toBe(2 * sent);
    expect(valueOf(samples, BYTES_OUT, route)).toBe(received);
  });

  it('counts refusals by failed authentications, by quota and by size (a file over its limit, a JSON body, headers)', async () => {
    const failures = await change(
      async () => {
        for (let i = 0; i < 3; i += 1) {
          const res = await fetch(`${sut.url}/api/v1/sandbox/sign`, {
            method: 'POST',
            headers: { Authorization: 'Bearer svc_sandbox_wrong', 'X-Forwarded-For': '10.9.0.2' },
          });
          await res.body?.cancel();
        }
      },
      (s) => valueOf(s, REFUSED, { http_route: '/api/v1/sandbox/sign', reason: 'auth_failures' }),
    );
    expect(failures).toBe(1);

    const pdf = await makePdf({ pages: 1 });
    const signRoute = { http_route: '/api/v1/sign' };
    let quotaStatus = 0;
    const quota = await change(
      async () => {
        const res = await sign(pdf);
        quotaStatus = res.status;
        await res.body?.cancel();
      },
      (s) => valueOf(s, REFUSED, { ...signRoute, reason: 'quota' }),
    );
    expect(quotaStatus).toBe(403);
    expect(quota).toBe(1);
    expect(signRequests).toBe(0);

    const big = Buffer.concat([pdf, Buffer.alloc(SNIFF_BYTES, 0x20)]);
    let sizeStatus = 0;
    const tooLarge = await change(
      async () => {
        const res = await sign(big);
        sizeStatus = res.status;
        await res.body?.cancel();
      },
      (s) => valueOf(s, REFUSED, { ...signRoute, reason: 'size' }),
    );
    expect(sizeStatus).toBe(413);
    expect(tooLarge).toBe(1);
    // No upload is left waiting for the rest of a refused file.
    await expect.poll(uploadsActive).toBe(0);

    const json = await change(
      async () => {
        const res = await sandbox('10.9.0.3', { document_url: `https://example.com/${'x'.repeat(300_000)}` });
        expect(res.status).toBe(413);
        await res.body?.cancel();
      },
      (s) => valueOf(s, REFUSED, { http_route: '/api/v1/sandbox/sign', reason: 'size' }),
    );
    expect(json).toBe(1);

    const headers = await change(
      () => rawStatus({ 'X-Padding': 'p'.repeat(20_000) }).then((status) => expect(status).toBe(431)),
      (s) => valueOf(s, REFUSED, { http_route: 'unmatched', reason: 'size' }),
    );
    expect(headers).toBe(1);
  });

  it('counts an upload while it streams, none once it ended, and the bytes read of it', async () => {
    // Its first half is more than the bytes its type is read from: the upload starts before the end.
    const file = Buffer.concat([await makePdf({ pages: 1 }), Buffer.alloc(4 * SNIFF_BYTES, 0x20)]);
    const route = { http_route: '/api/v1/send', http_request_method: 'POST' };
    const bytesBefore = valueOf((await scrape()).samples, BYTES_IN, route);
    const upload = slowUpload('/api/v1/send', file);
    await upload.halfSent;
    // Half of the file is in object storage's hands, the rest not sent yet.
    await expect.poll(uploadsActive).toBe(1);
    const answer = await upload.finish();
    // Answered after the whole upload (no signer behind this gateway to inspect it).
    expect(answer.status).toBeGreaterThanOrEqual(400);
    expect(answer.status).not.toBe(413);
    await expect.poll(uploadsActive).toBe(0);
    // The whole multipart body was read: the file and the fields and boundaries around it.
    const bytesIn = valueOf((await scrape()).samples, BYTES_IN, route) - bytesBefore;
    expect(bytesIn).toBe(answer.bodyBytes);
    expect(answer.bodyBytes).toBeGreaterThan(file.length);
  });

  it('passes promtool check metrics', async () => {
    const { text } = await scrape();
    expect(await promtoolCheckMetrics(text)).toEqual({ code: 0, output: '' });
  });
});

/** A GET with the given headers, sent as is, and the status it got. */
const rawStatus = (headers: Record<string, string>): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = httpRequest(`${sut.url}/healthz`, { headers, maxHeaderSize: 64 * 1024 }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.end();
  });

/**
 * A multipart POST of a file sent in two halves (chunked, so no Content-Length): the
 * second half only when `finish` is called.
 */
const slowUpload = (path: string, file: Buffer) => {
  const boundary = `----metrics${randomUUID()}`;
  const part = (name: string, value: string) =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const head = Buffer.from(
    part('signerName', 'Ada') +
      part('signerEmail', 'ada@example.com') +
      part('mode', 'type') +
      part('typedName', 'Ada') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n` +
      'Content-Type: application/pdf\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  const half = Math.floor(file.length / 2);
  const first = Buffer.concat([head, file.subarray(0, half)]);
  const second = Buffer.concat([file.subarray(half), tail]);
  const req = httpRequest(`${sut.url}${path}`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${KEY}`,
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
      'Transfer-Encoding': 'chunked',
    },
  });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  const halfSent = new Promise<void>((resolve) => req.write(first, () => resolve()));
  return {
    halfSent,
    finish: async () => {
      req.end(second);
      return { status: await answered, bodyBytes: first.length + second.length };
    },
  };
};
