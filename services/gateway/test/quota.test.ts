import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore, type BlobStore } from '@esign/blob';
import { connectBus, endpoint, type Bus } from '@esign/bus';
import {
  DocumentFindByIdempotencyKey,
  DocumentQuotaReserve,
  KeyVerify,
  PdfSign,
  ServiceError,
  type TPlan,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { makePdf, startTestS3, testNatsUrl, uniqueBusPrefix, type TestS3 } from '@esign/testing';
import type { RunningGateway } from '../src/start';
import { startTestGateway } from './helpers';

/**
 * Plans at the HTTP edge of POST /api/v1/sign (real NATS and S3 protocol; the key service is a
 * stand-in whose answers each test chooses): a used-up month is a 403 with the key service's words,
 * before anything is signed, and a plan's file size is refused while the upload streams.
 */
const ACCOUNT = randomUUID();
const QUOTA_MESSAGE =
  'The free plan allows 3 documents a month and this month is used up; it starts again at 2026-12-01T00:00:00.000Z';
let s3: TestS3;
let storage: BlobStore;
let services: Bus;
let sut: RunningGateway;
let plan: TPlan = 'pro';
let signRequests = 0;

beforeAll(async () => {
  const natsUrl = await testNatsUrl();
  const prefix = uniqueBusPrefix('gwq');
  s3 = await startTestS3();
  storage = createBlobStore({ ...s3, bucket: 'esign' });
  const logger = createLogger({ service: 'gateway-test', level: 'error' });
  services = await connectBus({ url: natsUrl, name: 'key', prefix, logger, timeoutMs: 5000 });
  await services.serve([
    // Any plan with API access here (the stand-in says so): the mechanism, whatever the plan table says.
    endpoint(KeyVerify, () =>
      Promise.resolve({
        accountId: ACCOUNT,
        keyId: randomUUID(),
        email: 'a@example.com',
        plan,
        apiAccess: true,
      }),
    ),
    endpoint(DocumentQuotaReserve, () =>
      Promise.reject(new ServiceError('permission_denied', QUOTA_MESSAGE)),
    ),
    endpoint(DocumentFindByIdempotencyKey, () => Promise.reject(new ServiceError('not_found', 'none'))),
    endpoint(PdfSign, () => {
      signRequests += 1;
      return Promise.reject(new ServiceError('internal', 'the signer must not be asked'));
    }),
  ]);
  sut = await startTestGateway(
    { natsUrl, prefix, s3 },
    { S3_BUCKET: 'esign', KEY_CACHE_TTL_MS: '0' },
    logger,
  );
});

afterAll(async () => {
  await sut?.stop();
  await services?.drain();
  await s3?.stop();
});

const sign = (file: Buffer) => {
  const form = new FormData();
  form.append('signerName', 'Ada');
  form.append('signerEmail', 'ada@example.com');
  form.append('mode', 'type');
  form.append('typedName', 'Ada');
  form.append('file', new Blob([new Uint8Array(file)], { type: 'application/pdf' }), 'a.pdf');
  return fetch(`${sut.url}/api/v1/sign`, {
    method: 'POST',
    headers: { Authorization: `Bearer svc_live_${'k'.repeat(32)}` },
    body: form,
  });
};

describe('plans on POST /api/v1/sign', () => {
  it("answers 403 with the key service's message when the month is used up, signs nothing and keeps no upload", async () => {
    // A plan with a monthly limit (Business has none, so it reserves nothing: see sign-document.test.ts).
    plan = 'pro';
    const res = await sign(await makePdf({ pages: 1 }));
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toBe(QUOTA_MESSAGE);
    expect(signRequests).toBe(0);
    expect(await storage.list('uploads/')).toEqual([]);
  });

  it("refuses a file above the plan's size (413) while it streams; the same file passes on a 25 MiB plan", async () => {
    // 10 MiB is Free's limit: a PDF a little over it.
    const big = Buffer.concat([await makePdf({ pages: 1 }), Buffer.alloc(10 * 1024 * 1024 + 1024, 0x20)]);
    plan = 'free';
    const refused = await sign(big);
    expect(refused.status).toBe(413);
    expect(((await refused.json()) as { error: string }).error).toBe('file exceeds the 10 MB limit');
    // On Pro (25 MiB) the upload is taken and the request goes on to the quota (used up here).
    plan = 'pro';
    const taken = await sign(big);
    expect(taken.status).toBe(403);
    await taken.body?.cancel();
    expect(signRequests).toBe(0);
    expect(await storage.list('uploads/')).toEqual([]);
  });
});
