import { Readable } from 'node:stream';
import type { TRecordDocumentRequest, TSignPdfRequest } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import type { SigningPorts } from './ports';

/** Signing ports for tests of the workflow: each answer as the test says, and a record of what happened. */
export interface FakeSigningWorld {
  readonly ports: SigningPorts;
  readonly signRequests: TSignPdfRequest[];
  readonly records: TRecordDocumentRequest[];
  /** Object keys removed, in order. */
  readonly removed: string[];
  /** Messages logged at warn level. */
  readonly warnings: string[];
}

const unexpected = (what: string) => () => Promise.reject(new Error(`unexpected call: ${what}`));

export const fakeSigningPorts = (
  answers: Partial<
    Pick<SigningPorts, 'signPdf' | 'recordDocument' | 'documentExists' | 'findByIdempotencyKey'>
  >,
): FakeSigningWorld => {
  const signRequests: TSignPdfRequest[] = [];
  const records: TRecordDocumentRequest[] = [];
  const removed: string[] = [];
  const warnings: string[] = [];
  const logger = createLogger({
    service: 'test',
    level: 'warn',
    write: (line) => {
      const entry = JSON.parse(line) as { level?: string; msg?: string };
      if (entry.level === 'warn' && entry.msg) warnings.push(entry.msg);
    },
  });
  const ports: SigningPorts = {
    signPdf: (request) => {
      signRequests.push(request);
      return (answers.signPdf ?? unexpected('signPdf'))(request);
    },
    recordDocument: (record) => {
      records.push(record);
      return (answers.recordDocument ?? unexpected('recordDocument'))(record);
    },
    documentExists: answers.documentExists ?? unexpected('documentExists'),
    findByIdempotencyKey: answers.findByIdempotencyKey ?? (() => Promise.resolve(undefined)),
    openObject: (key) => Promise.resolve(Readable.from([Buffer.from(`object ${key}`)])),
    removeObject: (key) => {
      removed.push(key);
      return Promise.resolve();
    },
    logger,
  };
  return { ports, signRequests, records, removed, warnings };
};
