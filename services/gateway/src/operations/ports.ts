import type { Readable } from 'node:stream';
import type { BlobStore } from '@esign/blob';
import type { Bus } from '@esign/bus';
import {
  DocumentFindByIdempotencyKey,
  DocumentQuotaRelease,
  DocumentQuotaReserve,
  DocumentGet,
  DocumentRecord,
  PdfSign,
  ServiceError,
  type TRecordDocumentRequest,
  type TSignPdfReply,
  type TSignPdfRequest,
} from '@esign/contracts';
import type { Logger } from '@esign/telemetry';
import type { z } from 'zod';

/** The document an earlier request under an `Idempotency-Key` produced. */
export type TEarlierDocument = z.infer<typeof DocumentFindByIdempotencyKey.reply>;

/**
 * What the sign workflow needs from the world, as plain functions: the services behind the bus and
 * object storage. Production wires them to NATS and S3 (`createSigningPorts`); tests pass typed fakes.
 * Errors keep their types (`ServiceError`, `NotDeliveredError` when no service received a request).
 */
export interface SigningPorts {
  /** `pdf.sign`: sign an upload, store the signed PDF, delete the upload. */
  signPdf(request: TSignPdfRequest): Promise<TSignPdfReply>;
  /** `document.record`: one transaction of record, audit log and outbox event. */
  recordDocument(record: TRecordDocumentRequest): Promise<void>;
  /** Whether the account has a document with this audit ID (throws when that cannot be told). */
  documentExists(accountId: string, auditId: string): Promise<boolean>;
  /** The document an account's Idempotency-Key produced, if any. */
  findByIdempotencyKey(accountId: string, key: string): Promise<TEarlierDocument | undefined>;
  /**
   * `key.reserve-document`: count one document against the account's plan for this UTC month,
   * atomically; `permission_denied` when the month's quota is used up.
   */
  reserveDocument(accountId: string): Promise<{ readonly reservationId: string }>;
  /** `key.release-document`: give a reservation back (the document was not created). Idempotent. */
  releaseDocument(accountId: string, reservationId: string): Promise<void>;
  /** Read an object of storage as a stream. */
  openObject(key: string): Promise<Readable>;
  /** Remove an object of storage (removing a missing one is not an error). */
  removeObject(key: string): Promise<void>;
  readonly logger: Logger;
}

const unlessNotFound = <T>(err: unknown, value: T): T => {
  if (err instanceof ServiceError && err.code === 'not_found') return value;
  throw err;
};

/** The signing ports on the bus and object storage. Built once at start-up. */
export const createSigningPorts = (deps: {
  bus: Bus;
  blob: BlobStore;
  logger: Logger;
  signTimeoutMs: number;
}): SigningPorts => ({
  signPdf: (request) => deps.bus.request(PdfSign, request, { timeoutMs: deps.signTimeoutMs }),
  recordDocument: async (record) => void (await deps.bus.request(DocumentRecord, record)),
  documentExists: (accountId, auditId) =>
    deps.bus.request(DocumentGet, { accountId, auditId }).then(
      () => true,
      (err: unknown) => unlessNotFound(err, false),
    ),
  findByIdempotencyKey: (accountId, key) =>
    deps.bus
      .request(DocumentFindByIdempotencyKey, { accountId, key })
      .catch((err: unknown) => unlessNotFound(err, undefined)),
  reserveDocument: (accountId) => deps.bus.request(DocumentQuotaReserve, { accountId }),
  releaseDocument: async (accountId, reservationId) =>
    void (await deps.bus.request(DocumentQuotaRelease, { accountId, reservationId })),
  openObject: (key) => deps.blob.get(key),
  removeObject: (key) => deps.blob.remove(key),
  logger: deps.logger,
});
