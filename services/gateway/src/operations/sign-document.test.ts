import { describe, expect, it } from 'vitest';
import { ServiceError } from '@esign/contracts';
import { signedReply } from './fake-world';
import { fakeSigningPorts } from './fake-signing-ports';
import type { TEarlierDocument } from './ports';
import { signDocument, type SignDocumentInput } from './sign-document';

const ACCOUNT = '3f1c2b8e-5d6a-4e7f-9a0b-1c2d3e4f5a6b';
const UPLOAD = 'uploads/5c0b7a51-0f6e-4a54-9d7f-3b1d7c5e2a10';
const input: SignDocumentInput = {
  accountId: ACCOUNT,
  upload: { key: UPLOAD, fileName: 'contract.pdf', kind: 'pdf' },
  signature: { mode: 'type', typedName: 'Ada', color: '#1e3a8a' },
  positions: [{ x: 10, y: 80, page: 0, width: 25 }],
  usedPositions: true,
  signer: { name: 'Ada', email: 'ada@example.com', ipAddress: '203.0.113.9', userAgent: 'curl/8' },
  receivedAt: '2026-11-23T10:00:00.000Z',
};
const signed = signedReply(ACCOUNT, 'ESG-AAAA-BBBB-CCCC');
const earlier: TEarlierDocument = {
  auditId: 'ESG-DDDD-EEEE-FFFF',
  requestHash: 'c'.repeat(64),
  fileName: 'contract.pdf',
  signedAt: '2026-11-22T09:00:00.000Z',
  fileHash: `sha256:${'d'.repeat(64)}`,
  objectKey: `signed/${ACCOUNT}/ESG-DDDD-EEEE-FFFF.pdf`,
  size: 999,
};

describe('signDocument', () => {
  it('signs a signing request with its reserved audit ID, and its record completes the request', async () => {
    const world = fakeSigningPorts({
      signPdf: () => Promise.resolve(signed),
      recordDocument: () => Promise.resolve(),
    });
    const signingRequest = {
      sendId: `send_${'A'.repeat(24)}`,
      tokenHash: 'e'.repeat(64),
      auditId: signed.auditId,
    };
    await signDocument(world.ports, { ...input, signingRequest });
    expect(world.signRequests[0]?.auditId).toBe(signed.auditId);
    expect(world.records[0]?.signingRequest).toEqual({
      sendId: signingRequest.sendId,
      tokenHash: 'e'.repeat(64),
    });
    // Without one, the signer makes the audit ID and the record completes nothing.
    await signDocument(world.ports, input);
    expect(world.signRequests[1]?.auditId).toBeUndefined();
    expect(world.records[1]?.signingRequest).toBeUndefined();
  });

  it('signs the upload, records the result with the signer, and hands back where the PDF is', async () => {
    const world = fakeSigningPorts({
      signPdf: () => Promise.resolve(signed),
      recordDocument: () => Promise.resolve(),
    });
    const sut = await signDocument(world.ports, input);
    expect(sut).toMatchObject({
      auditId: signed.auditId,
      objectKey: signed.signedKey,
      downloadName: 'contract-signed.pdf',
      replayed: false,
    });
    expect(world.signRequests[0]).toMatchObject({ uploadKey: UPLOAD, accountId: ACCOUNT });
    expect(world.records[0]).toMatchObject({
      auditId: signed.auditId,
      signerName: 'Ada',
      ipAddress: '203.0.113.9',
      fileHash: signed.fileHash,
      objectKey: signed.signedKey,
    });
    expect(world.removed).toEqual([]);
  });

  it('answers a retry with the earlier document and signs nothing', async () => {
    const world = fakeSigningPorts({ findByIdempotencyKey: () => Promise.resolve(earlier) });
    const sut = await signDocument(world.ports, {
      ...input,
      idempotency: { key: 'k-1', requestHash: earlier.requestHash },
    });
    expect(sut).toMatchObject({
      auditId: earlier.auditId,
      replayed: true,
      downloadName: 'contract-signed.pdf',
    });
    expect(world.signRequests).toEqual([]);
    expect(world.removed).toEqual([UPLOAD]);
  });

  it('refuses the same key with a different request (409) and removes the upload', async () => {
    const world = fakeSigningPorts({ findByIdempotencyKey: () => Promise.resolve(earlier) });
    const result = signDocument(world.ports, {
      ...input,
      idempotency: { key: 'k-1', requestHash: 'e'.repeat(64) },
    });
    await expect(result).rejects.toMatchObject({ code: 'conflict', field: 'Idempotency-Key' });
    expect(world.removed).toEqual([UPLOAD]);
  });

  it('answers with the winner when a racing request under the same key was recorded first', async () => {
    let lookups = 0;
    const world = fakeSigningPorts({
      // Nothing yet when this request starts; the winner's document once it lost the race.
      findByIdempotencyKey: () => Promise.resolve(lookups++ === 0 ? undefined : earlier),
      signPdf: () => Promise.resolve(signed),
      recordDocument: () =>
        Promise.reject(new ServiceError('conflict', 'Idempotency-Key already recorded', 'Idempotency-Key')),
      documentExists: () => Promise.resolve(false),
    });
    const sut = await signDocument(world.ports, {
      ...input,
      idempotency: { key: 'k-1', requestHash: earlier.requestHash },
    });
    expect(sut).toMatchObject({ auditId: earlier.auditId, replayed: true });
    // Our own signed PDF was discarded, and the upload is gone.
    expect(world.removed).toContain(signed.signedKey);
  });

  it('names a position the way the client sent it when the signer refuses it', async () => {
    const refusal = () =>
      Promise.reject(
        new ServiceError('invalid_argument', 'positions.0.page: page 5 does not exist', 'positions.0.page'),
      );
    const single = fakeSigningPorts({ signPdf: refusal });
    await expect(signDocument(single.ports, { ...input, usedPositions: false })).rejects.toMatchObject({
      field: 'page',
      message: 'page 5 does not exist',
    });
    const list = fakeSigningPorts({ signPdf: refusal });
    await expect(signDocument(list.ports, input)).rejects.toMatchObject({
      field: 'positions[0].page',
      message: 'positions[0].page: page 5 does not exist',
    });
    expect(list.removed).toEqual([UPLOAD]);
  });

  describe('the monthly quota', () => {
    it('reserves one document before signing and keeps it once the document is recorded', async () => {
      const world = fakeSigningPorts({
        signPdf: () => Promise.resolve(signed),
        recordDocument: () => Promise.resolve(),
      });
      await signDocument(world.ports, input);
      expect(world.reserved).toEqual(['r-1']);
      expect(world.released).toEqual([]);
    });

    it('reserves nothing on a plan without a limit: the record asks for the document to be counted from it', async () => {
      const world = fakeSigningPorts({
        signPdf: () => Promise.resolve(signed),
        recordDocument: () => Promise.resolve(),
      });
      await signDocument(world.ports, { ...input, unlimitedPlan: true });
      expect(world.reserved).toEqual([]);
      expect(world.records).toHaveLength(1);
      expect(world.records[0]?.countFromRecord).toBe(true);
      // Reserved before signing: the record does not ask for it to be counted again.
      const reserving = fakeSigningPorts({
        signPdf: () => Promise.resolve(signed),
        recordDocument: () => Promise.resolve(),
      });
      await signDocument(reserving.ports, input);
      expect(reserving.records[0]?.countFromRecord).toBeUndefined();
    });

    it('refuses a document past the quota (403), signs nothing and removes the upload', async () => {
      const quotaUsedUp = new ServiceError(
        'permission_denied',
        'The free plan allows 3 documents a month; this month is used up (resets 2026-12-01T00:00:00.000Z)',
      );
      const world = fakeSigningPorts({ reserveDocument: () => Promise.reject(quotaUsedUp) });
      await expect(signDocument(world.ports, input)).rejects.toBe(quotaUsedUp);
      expect(world.signRequests).toEqual([]);
      expect(world.released).toEqual([]);
      expect(world.removed).toEqual([UPLOAD]);
    });

    it('gives the document back when signing fails', async () => {
      const world = fakeSigningPorts({
        signPdf: () => Promise.reject(new ServiceError('invalid_argument', 'not a PDF', 'file')),
      });
      await expect(signDocument(world.ports, input)).rejects.toMatchObject({ code: 'invalid_argument' });
      expect(world.released).toEqual(['r-1']);
    });

    it('gives the document back when recording fails', async () => {
      const world = fakeSigningPorts({
        signPdf: () => Promise.resolve(signed),
        recordDocument: () => Promise.reject(new ServiceError('unavailable', 'document-store is down')),
        documentExists: () => Promise.resolve(false),
      });
      await expect(signDocument(world.ports, input)).rejects.toMatchObject({ code: 'unavailable' });
      expect(world.released).toEqual(['r-1']);
    });

    it('does not count a retry under the same Idempotency-Key: nothing is reserved', async () => {
      const world = fakeSigningPorts({ findByIdempotencyKey: () => Promise.resolve(earlier) });
      await signDocument(world.ports, {
        ...input,
        idempotency: { key: 'k-1', requestHash: earlier.requestHash },
      });
      expect(world.reserved).toEqual([]);
    });

    it('gives the document back when a racing request under the same key made it', async () => {
      let lookups = 0;
      const world = fakeSigningPorts({
        findByIdempotencyKey: () => Promise.resolve(lookups++ === 0 ? undefined : earlier),
        signPdf: () => Promise.resolve(signed),
        recordDocument: () =>
          Promise.reject(new ServiceError('conflict', 'Idempotency-Key already recorded', 'Idempotency-Key')),
        documentExists: () => Promise.resolve(false),
      });
      const sut = await signDocument(world.ports, {
        ...input,
        idempotency: { key: 'k-1', requestHash: earlier.requestHash },
      });
      expect(sut.replayed).toBe(true);
      expect(world.reserved).toEqual(['r-1']);
      expect(world.released).toEqual(['r-1']);
    });

    it('still answers the signed document when giving a reservation back fails (logged)', async () => {
      let lookups = 0;
      const world = fakeSigningPorts({
        findByIdempotencyKey: () => Promise.resolve(lookups++ === 0 ? undefined : earlier),
        signPdf: () => Promise.resolve(signed),
        recordDocument: () =>
          Promise.reject(new ServiceError('conflict', 'Idempotency-Key already recorded', 'Idempotency-Key')),
        documentExists: () => Promise.resolve(false),
        releaseDocument: () => Promise.reject(new ServiceError('unavailable', 'key service is down')),
      });
      const sut = await signDocument(world.ports, {
        ...input,
        idempotency: { key: 'k-1', requestHash: earlier.requestHash },
      });
      expect(sut.auditId).toBe(earlier.auditId);
      expect(world.warnings).toContain('could not release a document reservation');
    });
  });

  it('gives every call what is left of one deadline, keeping time back to record the result', async () => {
    const world = fakeSigningPorts({
      signPdf: () => new Promise((resolve) => setTimeout(() => resolve(signed), 200)),
      recordDocument: () => Promise.resolve(),
    });
    await signDocument(world.ports, { ...input, deadline: Date.now() + 10_000 });
    const [sign, record] = world.timeouts;
    expect(sign?.call).toBe('signPdf');
    // 10 s less the 5 s kept for recording.
    expect(sign?.timeoutMs).toBeGreaterThan(4_000);
    expect(sign?.timeoutMs).toBeLessThanOrEqual(5_000);
    // The record gets the rest: what signing left of the 10 s.
    expect(record?.call).toBe('recordDocument');
    expect(record?.timeoutMs).toBeGreaterThan(8_000);
    expect(record?.timeoutMs).toBeLessThanOrEqual(9_800);
  });
});
