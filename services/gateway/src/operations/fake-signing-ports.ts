import { Readable } from 'node:stream';
import type { TRecordDocumentRequest, TSignPdfRequest } from '@esign/contracts';
import { recordingLogger, unexpected } from './fake-world';
import type { SigningPorts } from './ports';

/** Signing ports for tests of the workflow: each answer as the test says, and a record of what happened. */
export interface FakeSigningWorld {
  readonly ports: SigningPorts;
  readonly signRequests: TSignPdfRequest[];
  readonly records: TRecordDocumentRequest[];
  /** Object keys removed, in order. */
  readonly removed: string[];
  /** Reservations granted, and the ones given back, by reservation id. */
  readonly reserved: string[];
  readonly released: string[];
  /** Messages logged at warn level. */
  readonly warnings: string[];
  /** The timeout each signPdf and recordDocument call was given. */
  readonly timeouts: { call: string; timeoutMs: number | undefined }[];
}

export const fakeSigningPorts = (
  answers: Partial<
    Pick<
      SigningPorts,
      | 'signPdf'
      | 'recordDocument'
      | 'documentExists'
      | 'findByIdempotencyKey'
      | 'reserveDocument'
      | 'releaseDocument'
    >
  >,
): FakeSigningWorld => {
  const signRequests: TSignPdfRequest[] = [];
  const records: TRecordDocumentRequest[] = [];
  const removed: string[] = [];
  const reserved: string[] = [];
  const released: string[] = [];
  const { logger, warnings } = recordingLogger();
  const timeouts: { call: string; timeoutMs: number | undefined }[] = [];
  const ports: SigningPorts = {
    signPdf: (request, options) => {
      signRequests.push(request);
      timeouts.push({ call: 'signPdf', timeoutMs: options?.timeoutMs });
      return (answers.signPdf ?? unexpected('signPdf'))(request);
    },
    recordDocument: (record, options) => {
      records.push(record);
      timeouts.push({ call: 'recordDocument', timeoutMs: options?.timeoutMs });
      return (answers.recordDocument ?? unexpected('recordDocument'))(record);
    },
    documentExists: answers.documentExists ?? unexpected('documentExists'),
    findByIdempotencyKey: answers.findByIdempotencyKey ?? (() => Promise.resolve(undefined)),
    // By default every reservation is granted (an unlimited plan), with ids r-1, r-2, …
    reserveDocument: async (accountId) => {
      const granted = answers.reserveDocument
        ? await answers.reserveDocument(accountId)
        : { reservationId: `r-${reserved.length + 1}` };
      reserved.push(granted.reservationId);
      return granted;
    },
    releaseDocument: async (accountId, reservationId) => {
      released.push(reservationId);
      await answers.releaseDocument?.(accountId, reservationId);
    },
    openObject: (key) => Promise.resolve(Readable.from([Buffer.from(`object ${key}`)])),
    removeObject: (key) => {
      removed.push(key);
      return Promise.resolve();
    },
    logger,
  };
  return { ports, signRequests, records, removed, reserved, released, warnings, timeouts };
};
