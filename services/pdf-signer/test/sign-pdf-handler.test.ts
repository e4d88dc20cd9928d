import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '@esign/blob';
import type { BlobStore } from '@esign/blob';
import { ServiceError } from '@esign/contracts';
import { newAuditId } from '@esign/ids';
import type { TSignPdfRequest } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { makePdf, makePng, startTestS3 } from '@esign/testing';
import type { TestS3 } from '@esign/testing';
import { createSigner } from '../src/index';
import { signedFileNameFor } from '@esign/contracts';
import { createSignPdfHandler } from '../src/handlers/sign-pdf';

let s3: TestS3;
let blob: BlobStore;
let handle: ReturnType<typeof createSignPdfHandler>;
const ctx = {
  logger: createLogger({ service: 'test', level: 'error', write: () => undefined }),
  subject: 'pdf.sign',
};

beforeAll(async () => {
  s3 = await startTestS3();
  blob = createBlobStore({ ...s3, bucket: 'handler-test' });
  await blob.ensureBucket();
  handle = createSignPdfHandler({
    blob,
    signer: await createSigner({ warn: () => undefined }),
    maxFileBytes: 4096,
  });
});
afterAll(async () => {
  await s3?.stop();
});

const request = async (uploadKey: string): Promise<TSignPdfRequest> => ({
  accountId: randomUUID(),
  uploadKey,
  fileName: 'a.pdf',
  kind: 'pdf',
  signature: { mode: 'draw', imageBase64: (await makePng()).toString('base64') },
  positions: [{ x: 10, y: 10, page: 0, width: 20 }],
  signer: { name: 'A', email: 'a@example.com', ipAddress: '::1', userAgent: 'x' },
  receivedAt: new Date().toISOString(),
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

describe('sign-pdf handler', () => {
  it('answers too_large for an upload above MAX_FILE_BYTES, and deletes it', async () => {
    const key = `uploads/${randomUUID()}`;
    await blob.put(key, Buffer.alloc(5000, 1));
    const err = await failure(handle(await request(key), ctx));
    expect(err).toMatchObject({ code: 'too_large', field: 'file' });
    expect(await blob.stat(key)).toBeUndefined();
  });

  it('answers invalid_argument on file when the upload is gone', async () => {
    const err = await failure(handle(await request(`uploads/${randomUUID()}`), ctx));
    expect(err).toMatchObject({ code: 'invalid_argument', field: 'file' });
  });

  it('stores the signed PDF under signed/<accountId>/<auditId>.pdf', async () => {
    const key = `uploads/${randomUUID()}`;
    await blob.put(key, await makePdf());
    const req = await request(key);
    const reply = await handle(req, ctx);
    expect(reply.signedKey).toBe(`signed/${req.accountId}/${reply.auditId}.pdf`);
    const stored = await blob.getBuffer(reply.signedKey);
    expect(stored.subarray(0, 5).toString()).toBe('%PDF-');
    expect(stored.length).toBe(reply.size);
  });

  it('gives the signed document a reserved audit ID when the request carries one', async () => {
    const key = `uploads/${randomUUID()}`;
    await blob.put(key, await makePdf());
    const auditId = newAuditId();
    const req = { ...(await request(key)), auditId };
    const reply = await handle(req, ctx);
    expect(reply.auditId).toBe(auditId);
    expect(reply.signedKey).toBe(`signed/${req.accountId}/${auditId}.pdf`);
    // The PDF itself carries it (its signature field is named after the audit ID).
    expect((await blob.getBuffer(reply.signedKey)).toString('latin1')).toContain(`Signature ${auditId}`);
  });
});

describe('signedFileNameFor', () => {
  it.each([
    ['contract.pdf', 'contract-signed.pdf'],
    ['C:\\Users\\me\\Scan 2.PNG', 'Scan 2-signed.pdf'],
    ['../../etc/passwd', 'passwd-signed.pdf'],
    ['archive.tar.gz', 'archive.tar-signed.pdf'],
    ['.pdf', 'document-signed.pdf'],
    ['noext', 'noext-signed.pdf'],
  ])('%s -> %s', (input, expected) => {
    expect(signedFileNameFor(input)).toBe(expected);
  });
});
