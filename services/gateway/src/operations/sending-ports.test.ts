import { describe, expect, it } from 'vitest';
import type { BlobStore } from '@esign/blob';
import { NotDeliveredError, RequestTimeoutError, type Bus } from '@esign/bus';
import { ServiceError } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { createSendingPorts, OutcomeUnknownError } from './sending-ports';

const REQUEST = {
  accountId: '3f1c2b8e-5d6a-4e7f-9a0b-1c2d3e4f5a6b',
  senderEmail: 'sender@example.com',
  recipientEmail: 'ada@example.com',
  recipientName: 'Ada',
  fileName: 'contract.pdf',
  objectKey: 'pending/3f1c2b8e-5d6a-4e7f-9a0b-1c2d3e4f5a6b/x.pdf',
  positions: [{ x: 50, y: 85, page: 0, width: 25 }],
};

/** The ports over a bus whose every request fails with `err`. */
const portsFailingWith = (err: Error) => {
  const bus: Pick<Bus, 'request'> = { request: () => Promise.reject(err) };
  const blob: Pick<BlobStore, 'copy' | 'remove'> = {
    copy: () => Promise.resolve(),
    remove: () => Promise.resolve(),
  };
  return createSendingPorts({ bus, blob, logger: createLogger({ service: 'test' }), inspectTimeoutMs: 1 });
};

describe('createSendingPorts', () => {
  it('says a timed-out signing.create may have been carried out (OutcomeUnknownError, still unavailable)', async () => {
    const sut = portsFailingWith(new RequestTimeoutError('signing.create timed out'));
    const err: unknown = await sut.createSigningRequest(REQUEST).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknownError);
    expect(err).toMatchObject({ code: 'unavailable', message: 'signing.create timed out' });
  });

  it('leaves a request that reached nobody, or that was refused, as it is: nothing was done', async () => {
    for (const failure of [
      new NotDeliveredError('documents service is unavailable'),
      new ServiceError('unavailable', 'the database is unavailable'),
      new ServiceError('conflict', 'Idempotency-Key was already used', 'Idempotency-Key'),
    ]) {
      const err: unknown = await portsFailingWith(failure)
        .createSigningRequest(REQUEST)
        .catch((e: unknown) => e);
      expect(err).toBe(failure);
    }
  });
});
