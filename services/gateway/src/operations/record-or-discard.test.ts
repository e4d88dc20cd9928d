import { describe, expect, it } from 'vitest';
import { NotDeliveredError } from '@esign/bus';
import { ServiceError } from '@esign/contracts';
import { fakeSigningPorts } from './fake-signing-ports';
import { recordOrDiscard } from './record-or-discard';

const ACCOUNT = '3f1c2b8e-5d6a-4e7f-9a0b-1c2d3e4f5a6b';
const KEY = `signed/${ACCOUNT}/ESG-AAAA-BBBB-CCCC.pdf`;
const record = {
  accountId: ACCOUNT,
  auditId: 'ESG-AAAA-BBBB-CCCC',
  fileName: 'a.pdf',
  signerName: 'A',
  signerEmail: 'a@example.com',
  ipAddress: '127.0.0.1',
  userAgent: 'test',
  signedAt: '2026-11-21T10:00:00.000Z',
  fileHash: `sha256:${'a'.repeat(64)}`,
  originalHash: `sha256:${'b'.repeat(64)}`,
  objectKey: KEY,
  size: 1,
  pageCount: 2,
  events: [],
};

const timeout = new ServiceError('unavailable', 'document.record timed out');
const rejectWith = (err: Error) => () => Promise.reject(err);

describe('recordOrDiscard', () => {
  it('keeps the signed PDF when the record is made', async () => {
    const world = fakeSigningPorts({ recordDocument: () => Promise.resolve() });
    await recordOrDiscard(world.ports, record);
    expect(world.records).toEqual([record]);
    expect(world.removed).toEqual([]);
  });

  it('removes the signed PDF when no document store got the request', async () => {
    const world = fakeSigningPorts({
      recordDocument: rejectWith(new NotDeliveredError('document service is unavailable')),
    });
    await expect(recordOrDiscard(world.ports, record)).rejects.toThrow(/document service is unavailable/);
    expect(world.removed).toEqual([KEY]);
  });

  it('succeeds when the answer timed out but the record exists', async () => {
    const world = fakeSigningPorts({
      recordDocument: rejectWith(timeout),
      documentExists: () => Promise.resolve(true),
    });
    await recordOrDiscard(world.ports, record);
    expect(world.removed).toEqual([]);
  });

  it('removes the signed PDF when the answer timed out and the store has no such record', async () => {
    const world = fakeSigningPorts({
      recordDocument: rejectWith(timeout),
      documentExists: () => Promise.resolve(false),
    });
    await expect(recordOrDiscard(world.ports, record)).rejects.toBe(timeout);
    expect(world.removed).toEqual([KEY]);
  });

  it('keeps the signed PDF, and says so, when whether it was recorded cannot be told', async () => {
    const world = fakeSigningPorts({
      recordDocument: rejectWith(timeout),
      documentExists: rejectWith(new ServiceError('unavailable', 'document.get timed out')),
    });
    await expect(recordOrDiscard(world.ports, record)).rejects.toBe(timeout);
    expect(world.removed).toEqual([]);
    expect(world.warnings).toEqual(['signed PDF kept: whether it was recorded is unknown']);
  });
});
