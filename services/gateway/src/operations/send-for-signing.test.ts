import { describe, expect, it } from 'vitest';
import { NotDeliveredError } from '@esign/bus';
import { ServiceError, type TSigningRequestCreated } from '@esign/contracts';
import { fakeSendingPorts } from './fake-sending-ports';
import { sendForSigning, type SendForSigningInput } from './send-for-signing';
import { OutcomeUnknownError } from './sending-ports';

const ACCOUNT = '3f1c2b8e-5d6a-4e7f-9a0b-1c2d3e4f5a6b';
const UPLOAD = 'uploads/5c0b7a51-0f6e-4a54-9d7f-3b1d7c5e2a10';
const PENDING = new RegExp(`^pending/${ACCOUNT}/[0-9a-f-]{36}\\.pdf$`);
const input: SendForSigningInput = {
  accountId: ACCOUNT,
  senderEmail: 'sender@example.com',
  upload: { key: UPLOAD, fileName: 'contract.pdf', size: 4321 },
  recipient: { email: 'ada@example.com', name: 'Ada Lovelace' },
  positions: [{ x: 60, y: 80, page: 1, width: 30 }],
  expiresInDays: 14,
};
const created: TSigningRequestCreated = {
  sendId: `send_${'A'.repeat(24)}`,
  auditId: 'ESG-AAAA-BBBB-CCCC',
  recipientEmail: 'ada@example.com',
  sentAt: '2026-11-23T10:00:00.000Z',
  status: 'pending',
  expiresAt: '2026-12-07T10:00:00.000Z',
};
const twoPages = () => Promise.resolve({ pageCount: 2 });

describe('sendForSigning', () => {
  it('copies the upload to its pending place on the server and creates the request with it', async () => {
    const world = fakeSendingPorts({
      inspectPdf: twoPages,
      createSigningRequest: () => Promise.resolve(created),
    });
    const sut = await sendForSigning(world.ports, input);
    expect(sut).toEqual({ ...created, replayed: false });
    expect(world.inspected).toEqual([UPLOAD]);
    expect(world.copies).toHaveLength(1);
    const pendingKey = world.copies[0]?.to ?? '';
    expect(world.copies[0]?.from).toBe(UPLOAD);
    // Stored as a PDF, as the upload (bytes of any kind until inspected) was not.
    expect(world.copies[0]?.contentType).toBe('application/pdf');
    expect(pendingKey).toMatch(PENDING);
    // The upload goes once copied; the pending copy stays for the request.
    expect(world.removed).toEqual([UPLOAD]);
    expect(world.created[0]).toEqual({
      accountId: ACCOUNT,
      senderEmail: 'sender@example.com',
      recipientEmail: 'ada@example.com',
      recipientName: 'Ada Lovelace',
      subject: undefined,
      message: null,
      fileName: 'contract.pdf',
      objectKey: pendingKey,
      positions: input.positions,
      pageCount: 2,
      expiresInDays: 14,
      idempotency: undefined,
    });
    expect(world.infos).toContain('signing request sent');
  });

  it('puts the signature at the default place when the sender gives no positions', async () => {
    const world = fakeSendingPorts({
      inspectPdf: twoPages,
      createSigningRequest: () => Promise.resolve(created),
    });
    await sendForSigning(world.ports, { ...input, positions: undefined });
    expect(world.created[0]?.positions).toEqual([{ x: 50, y: 85, page: 0, width: 25 }]);
  });

  describe('the page check', () => {
    it('refuses a position beyond the last page (400 naming the field) before copying anything', async () => {
      const world = fakeSendingPorts({ inspectPdf: twoPages });
      const positions = [
        { x: 10, y: 10, page: 1, width: 20 },
        { x: 10, y: 10, page: 2, width: 20 },
      ];
      await expect(sendForSigning(world.ports, { ...input, positions })).rejects.toMatchObject({
        code: 'invalid_argument',
        field: 'positions[1].page',
        message: 'positions[1].page: page 2 does not exist (the document has 2 pages)',
      });
      expect(world.copies).toEqual([]);
      expect(world.created).toEqual([]);
      // The upload is the caller's to remove (the mount removes an upload nobody took over).
      expect(world.removed).toEqual([]);
    });

    it('says "1 page" of a one-page document, on which the default position (page 0) fits', async () => {
      const world = fakeSendingPorts({ inspectPdf: () => Promise.resolve({ pageCount: 1 }) });
      const positions = [{ x: 10, y: 10, page: 3, width: 20 }];
      await expect(sendForSigning(world.ports, { ...input, positions })).rejects.toMatchObject({
        message: 'positions[0].page: page 3 does not exist (the document has 1 page)',
      });
      // The default position is always on page 0, which every PDF has.
      const fine = fakeSendingPorts({
        inspectPdf: () => Promise.resolve({ pageCount: 1 }),
        createSigningRequest: () => Promise.resolve(created),
      });
      await expect(sendForSigning(fine.ports, { ...input, positions: undefined })).resolves.toBeDefined();
    });

    it('lets the signer refuse what is not a readable PDF, before copying anything', async () => {
      const notPdf = new ServiceError('invalid_argument', 'file: not a readable PDF', 'file');
      const world = fakeSendingPorts({ inspectPdf: () => Promise.reject(notPdf) });
      await expect(sendForSigning(world.ports, input)).rejects.toBe(notPdf);
      expect(world.copies).toEqual([]);
    });
  });

  describe('compensation', () => {
    it('removes the pending copy when signing.create refuses the request', async () => {
      const refusal = new ServiceError('invalid_argument', 'recipientEmail: not allowed', 'recipientEmail');
      const world = fakeSendingPorts({
        inspectPdf: twoPages,
        createSigningRequest: () => Promise.reject(refusal),
      });
      await expect(sendForSigning(world.ports, input)).rejects.toBe(refusal);
      const pendingKey = world.copies[0]?.to;
      expect(world.removed).toEqual([UPLOAD, pendingKey]);
    });

    it('removes the pending copy when no document store received the request', async () => {
      const world = fakeSendingPorts({
        inspectPdf: twoPages,
        createSigningRequest: () => Promise.reject(new NotDeliveredError('documents service is unavailable')),
      });
      await expect(sendForSigning(world.ports, input)).rejects.toMatchObject({ code: 'unavailable' });
      expect(world.removed).toEqual([UPLOAD, world.copies[0]?.to]);
    });

    it('keeps the pending copy when signing.create timed out: the request may exist and need it', async () => {
      const world = fakeSendingPorts({
        inspectPdf: twoPages,
        createSigningRequest: () => Promise.reject(new OutcomeUnknownError('signing.create timed out')),
      });
      await expect(sendForSigning(world.ports, input)).rejects.toMatchObject({
        code: 'unavailable',
        message: 'signing.create timed out',
      });
      expect(world.removed).toEqual([UPLOAD]);
      expect(world.warnings).toEqual(['original kept: whether the signing request was created is unknown']);
    });

    it('creates nothing when the copy fails, and leaves the upload to the caller', async () => {
      const world = fakeSendingPorts({
        inspectPdf: twoPages,
        copyObject: () => Promise.reject(new ServiceError('unavailable', 'object storage is unavailable')),
      });
      await expect(sendForSigning(world.ports, input)).rejects.toMatchObject({ code: 'unavailable' });
      expect(world.created).toEqual([]);
      expect(world.removed).toEqual([]);
    });
  });

  describe('an Idempotency-Key', () => {
    it('is passed on with the fingerprint, and a replay removes its unused copy', async () => {
      const world = fakeSendingPorts({
        inspectPdf: twoPages,
        createSigningRequest: () => Promise.resolve({ ...created, status: 'signed', replayed: true }),
      });
      const idempotency = { key: 'k-1', requestHash: 'c'.repeat(64) };
      const sut = await sendForSigning(world.ports, { ...input, idempotency });
      expect(sut).toEqual({ ...created, status: 'signed', replayed: true });
      expect(world.created[0]?.idempotency).toEqual(idempotency);
      // The first request's original is the one in use.
      expect(world.removed).toEqual([UPLOAD, world.copies[0]?.to]);
      expect(world.infos).toContain('signing request replayed');
    });

    it('refused for a different request (409): the copy is removed', async () => {
      const world = fakeSendingPorts({
        inspectPdf: twoPages,
        createSigningRequest: () =>
          Promise.reject(new ServiceError('conflict', 'Idempotency-Key was already used', 'Idempotency-Key')),
      });
      const idempotency = { key: 'k-1', requestHash: 'd'.repeat(64) };
      await expect(sendForSigning(world.ports, { ...input, idempotency })).rejects.toMatchObject({
        code: 'conflict',
        field: 'Idempotency-Key',
      });
      expect(world.removed).toEqual([UPLOAD, world.copies[0]?.to]);
    });
  });
});
