import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '@esign/blob';
import type { BlobStore } from '@esign/blob';
import { ServiceError } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { makePdf, makePng, startTestS3 } from '@esign/testing';
import type { TestS3 } from '@esign/testing';
import { createSigner } from '../src/index';
import type { Signer } from '../src/index';
import { createVerifyPdfHandler } from '../src/handlers/verify-pdf';
import { startVerifier } from '../src/verify/start-verifier';
import type { Verifier } from '../src/verify/start-verifier';

const logger = createLogger({ service: 'test', level: 'error', write: () => undefined });
const ctx = { logger, subject: 'pdf.verify' };
let s3: TestS3;
let blob: BlobStore;
let signer: Signer;
let verifier: Verifier;
let handle: ReturnType<typeof createVerifyPdfHandler>;

beforeAll(async () => {
  s3 = await startTestS3();
  blob = createBlobStore({ ...s3, bucket: 'verify-handler-test' });
  await blob.ensureBucket();
  signer = await createSigner({ warn: () => undefined });
  verifier = startVerifier({
    budgetMs: 10_000,
    heapMb: 128,
    setup: { ownFingerprint256: signer.certificateFingerprint },
    logger,
  });
  handle = createVerifyPdfHandler({ blob, verifier, maxFileBytes: 1024 * 1024 });
});
afterAll(async () => {
  await verifier?.close();
  await s3?.stop();
});

const failure = async (promise: Promise<unknown>) => {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a ServiceError');
};

describe('verify-pdf handler', () => {
  it('checks an upload on the verification worker and deletes it', async () => {
    const signed = await signer.sign({
      bytes: await makePdf(),
      kind: 'pdf',
      fileName: 'a.pdf',
      signature: { mode: 'draw', imageBase64: (await makePng()).toString('base64') },
      positions: [{ x: 10, y: 10, page: 0, width: 20 }],
      signer: { name: 'A', email: 'a@example.com', ipAddress: '::1', userAgent: 'x' },
      receivedAt: new Date().toISOString(),
      padesLevel: 'B-LT',
    });
    const key = `uploads/${randomUUID()}`;
    await blob.put(key, signed.bytes);
    const report = await handle({ uploadKey: key }, ctx);
    expect(report.signatures).toHaveLength(1);
    expect(report.signatures[0]).toMatchObject({
      cryptographicallyValid: true,
      sealedByThisService: true,
      changesAfter: ['long-term validation data (DSS)'],
    });
    // The last revision is the whole file: its hash is the signer's fileHash.
    expect(report.revisions.at(-1)).toEqual({ end: signed.bytes.length, sha256: signed.fileHash });
    expect(await blob.stat(key)).toBeUndefined();
  });

  it('reads only uploads, and says when the upload is gone', async () => {
    expect((await failure(handle({ uploadKey: 'signed/acct/ESG-AAAA-BBBB-CCCC.pdf' }, ctx))).field).toBe(
      'uploadKey',
    );
    const missing = await failure(handle({ uploadKey: `uploads/${randomUUID()}` }, ctx));
    expect(missing.code).toBe('invalid_argument');
    expect(missing.message).toMatch(/missing or has expired/);
  });

  it('answers too_large above its limit, and deletes the upload', async () => {
    const key = `uploads/${randomUUID()}`;
    await blob.put(key, Buffer.alloc(1024 * 1024 + 1, 0x20));
    expect((await failure(handle({ uploadKey: key }, ctx))).code).toBe('too_large');
    expect(await blob.stat(key)).toBeUndefined();
  });
});
