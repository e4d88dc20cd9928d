import { describe, expect, it } from 'vitest';
import type { BlobStore } from '@esign/blob';
import { NotDeliveredError, type Bus } from '@esign/bus';
import { DocumentGet, DocumentRecord, ServiceError } from '@esign/contracts';
import type { Logger } from '@esign/telemetry';
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

/** A bus that answers document.record and document.get as told, and what happened around it. */
const world = (answers: { record: () => unknown; get?: () => unknown }) => {
  const removed: string[] = [];
  const warnings: string[] = [];
  const bus = {
    request: (contract: { subject: string }) =>
      Promise.resolve().then(() => {
        if (contract.subject === DocumentRecord.subject) return answers.record();
        if (contract.subject === DocumentGet.subject && answers.get) return answers.get();
        throw new Error(`unexpected request ${contract.subject}`);
      }),
  } as unknown as Bus;
  const blob = { remove: (key: string) => Promise.resolve(void removed.push(key)) } as unknown as BlobStore;
  const logger = { warn: (message: string) => void warnings.push(message) } as unknown as Logger;
  const sut = () => recordOrDiscard({ bus, blob, logger }, ACCOUNT, KEY, record);
  return { sut, removed, warnings };
};

const fail = (err: Error) => () => {
  throw err;
};
const timeout = new ServiceError('unavailable', 'document.record timed out');

describe('recordOrDiscard', () => {
  it('keeps the signed PDF when the record is made', async () => {
    const { sut, removed } = world({ record: () => ({ recorded: true }) });
    await sut();
    expect(removed).toEqual([]);
  });

  it('removes the signed PDF when no document store got the request', async () => {
    const { sut, removed } = world({
      record: fail(new NotDeliveredError('document service is unavailable')),
    });
    await expect(sut()).rejects.toThrow(/document service is unavailable/);
    expect(removed).toEqual([KEY]);
  });

  it('succeeds when the answer timed out but the record exists', async () => {
    const { sut, removed } = world({ record: fail(timeout), get: () => ({ auditId: record.auditId }) });
    await sut();
    expect(removed).toEqual([]);
  });

  it('removes the signed PDF when the answer timed out and the store has no such record', async () => {
    const { sut, removed } = world({
      record: fail(timeout),
      get: fail(new ServiceError('not_found', 'no document ESG-AAAA-BBBB-CCCC')),
    });
    await expect(sut()).rejects.toBe(timeout);
    expect(removed).toEqual([KEY]);
  });

  it('keeps the signed PDF, and says so, when whether it was recorded cannot be told', async () => {
    const { sut, removed, warnings } = world({
      record: fail(timeout),
      get: fail(new ServiceError('unavailable', 'document.get timed out')),
    });
    await expect(sut()).rejects.toBe(timeout);
    expect(removed).toEqual([]);
    expect(warnings).toEqual(['signed PDF kept: whether it was recorded is unknown']);
  });
});
