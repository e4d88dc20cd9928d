import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore, type BlobStore } from '@esign/blob';
import { connectBus, endpoint, type Bus } from '@esign/bus';
import { DocumentRecord, KeyVerify, PdfSign, ServiceError } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import {
  makePdf,
  parseSamples,
  scrapeMetrics,
  startTestS3,
  testNatsUrl,
  uniqueBusPrefix,
  valueOf,
  type TestS3,
} from '@esign/testing';
import type { RunningGateway } from '../src/start';
import { startTestGateway } from './helpers';

/**
 * The gateway's rehearsal at start-up (WARM_UP_MS): real HTTP requests to its own app on a loopback
 * port, with a bus prefix of its own. The services of the stack (stand-ins here, on the stack's
 * prefix) receive nothing, object storage is left as it was, no metric counts a request; the first
 * real requests are answered as ever.
 */
const KEY = `svc_live_${'w'.repeat(32)}`;
const ACCOUNT = randomUUID();
let s3: TestS3;
let blob: BlobStore;
let services: Bus;
let watcher: Bus;
let sut: RunningGateway;
const lines: Record<string, unknown>[] = [];
/** Every message on the stack's prefix while the gateway started. */
const duringStart: string[] = [];
let starting = true;
let verified = 0;

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  const prefix = uniqueBusPrefix('gww');
  s3 = await startTestS3();
  blob = createBlobStore({
    endpoint: s3.endpoint,
    accessKey: s3.accessKey,
    secretKey: s3.secretKey,
    bucket: 'esign',
    region: 'us-east-1',
  });
  await blob.ensureBucket();
  const logger = createLogger({ service: 'gateway-test', level: 'error' });
  watcher = await connectBus({ url: natsUrl, name: 'watcher', prefix, logger, timeoutMs: 5000 });
  watcher.connection.subscribe(`${prefix}>`, {
    callback: (_err, msg) => {
      if (starting) duringStart.push(msg.subject);
    },
  });
  await watcher.connection.flush();
  services = await connectBus({ url: natsUrl, name: 'key', prefix, logger, timeoutMs: 5000 });
  await services.serve([
    endpoint(KeyVerify, ({ keyHash }) => {
      verified += 1;
      if (keyHash !== createHash('sha256').update(KEY).digest('hex'))
        return Promise.reject(new ServiceError('unauthenticated', 'unknown key'));
      return Promise.resolve({
        accountId: ACCOUNT,
        keyId: randomUUID(),
        email: 'a@example.com',
        plan: 'business' as const,
        apiAccess: true,
      });
    }),
    endpoint(PdfSign, async (req) => {
      const auditId = 'ESIGN-WARM-TEST-0001';
      const signed = await makePdf({ pages: 1 });
      const signedKey = `signed/${req.accountId}/${auditId}.pdf`;
      await blob.put(signedKey, signed);
      await blob.remove(req.uploadKey);
      return {
        auditId,
        signedAt: new Date().toISOString(),
        signedKey,
        signedFileName: 'a-signed.pdf',
        fileHash: `sha256:${createHash('sha256').update(signed).digest('hex')}`,
        originalHash: `sha256:${'b'.repeat(64)}`,
        size: signed.length,
        pageCount: 1,
        events: [],
      };
    }),
    endpoint(DocumentRecord, () => Promise.resolve({ id: randomUUID() })),
  ]);
  // Nothing the stand-ins did at set-up counts as the start's.
  await watcher.connection.flush();
  duringStart.length = 0;
  sut = await startTestGateway(
    { natsUrl, prefix, s3 },
    { S3_BUCKET: 'esign', WARM_UP_MS: '400', LOG_LEVEL: 'info' },
    createLogger({
      service: 'gateway',
      level: 'info',
      write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
    }),
  );
  await watcher.connection.flush();
  starting = false;
}, 60_000);

afterAll(async () => {
  await sut?.stop();
  await services?.drain();
  await watcher?.drain();
  await s3?.stop();
});

const scrape = async () => parseSamples(await scrapeMetrics(sut.healthPort));

const signForm = (file: Buffer) => {
  const form = new FormData();
  for (const [k, v] of Object.entries({ signerName: 'Ada', signerEmail: 'ada@example.com', mode: 'type' }))
    form.append(k, v);
  form.append('typedName', 'Ada');
  form.append('file', new Blob([new Uint8Array(file)], { type: 'application/pdf' }), 'a.pdf');
  return form;
};

describe('the gateway rehearses POST /api/v1/sign before it listens (WARM_UP_MS)', () => {
  it('signs through its own app many times, before it listens', () => {
    const messages = lines.map((line) => line.msg);
    const warmed = lines.find((line) => line.msg === 'gateway warmed up');
    expect(warmed?.requests).toBeGreaterThanOrEqual(2);
    expect(messages).not.toContain('gateway warm-up failed');
    expect(messages.indexOf('gateway listening')).toBeGreaterThan(messages.indexOf('gateway warmed up'));
    // Its requests are not in the gateway's log: only real ones are.
    expect(lines.filter((line) => line.msg === 'request')).toEqual([]);
  });

  it('sends no service of the stack a message, leaves nothing in storage and counts no request', async () => {
    expect(duringStart).toEqual([]);
    expect(verified).toBe(0);
    expect(await blob.list('')).toEqual([]);
    const samples = await scrape();
    expect(valueOf(samples, 'http_server_request_duration_count')).toBe(0);
    expect(valueOf(samples, 'esign_http_request_body_size_count')).toBe(0);
  });

  it('answers the first real requests as ever, with the real services and counted', async () => {
    const unknown = await fetch(`${sut.url}/api/v1/sign`, {
      method: 'POST',
      headers: { Authorization: `Bearer svc_live_${'x'.repeat(32)}` },
      body: signForm(await makePdf()),
    });
    expect(unknown.status).toBe(401);
    const signed = await fetch(`${sut.url}/api/v1/sign`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}` },
      body: signForm(await makePdf()),
    });
    expect(signed.status).toBe(200);
    expect(signed.headers.get('x-audit-id')).toBe('ESIGN-WARM-TEST-0001');
    expect(
      Buffer.from(await signed.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-');
    expect(verified).toBe(2);
    const samples = await scrape();
    expect(valueOf(samples, 'http_server_request_duration_count', { http_route: '/api/v1/sign' })).toBe(2);
    expect(lines.filter((line) => line.msg === 'request')).toHaveLength(2);
  });
});

describe('without a rehearsal (WARM_UP_MS=0)', () => {
  it('starts without one', async () => {
    const natsUrl = await testNatsUrl();
    const quiet: Record<string, unknown>[] = [];
    const gateway = await startTestGateway(
      { natsUrl, prefix: uniqueBusPrefix('gw0'), s3 },
      { S3_BUCKET: 'esign', WARM_UP_MS: '0', LOG_LEVEL: 'info' },
      createLogger({
        service: 'gateway',
        level: 'info',
        write: (line) => quiet.push(JSON.parse(line) as Record<string, unknown>),
      }),
    );
    await gateway.stop();
    const messages = quiet.map((line) => line.msg);
    expect(messages).toContain('gateway listening');
    expect(messages).not.toContain('gateway warmed up');
  });
});
