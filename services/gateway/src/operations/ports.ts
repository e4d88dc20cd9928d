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
import { RefusedError } from '../http/refusal';
import type { z } from 'zod';

/** The document an earlier request under an `Idempotency-Key` produced. */
export type TEarlierDocument = z.infer<typeof DocumentFindByIdempotencyKey.reply>;

/**
 * What the sign workflow needs from the world, as plain functions: the services behind the bus and
 * object storage. Production wires them to NATS and S3 (`createSigningPorts`); tests pass typed fakes.
 * Errors keep their types (`ServiceError`, `NotDeliveredError` when no service received a request).
 */
/** How long a call may take (the bus's default, or the signer's timeout, when not given). */
export interface CallOptions {
  readonly timeoutMs?: number;
}

export interface SigningPorts {
  /** `pdf.sign`: sign an upload, store the signed PDF, delete the upload. */
  signPdf(request: TSignPdfRequest, options?: CallOptions): Promise<TSignPdfReply>;
  /** `document.record`: one transaction of record, audit log and outbox event. */
  recordDocument(record: TRecordDocumentRequest, options?: CallOptions): Promise<void>;
  /** Whether the account has a document with this audit ID (throws when that cannot be told). */
  documentExists(accountId: string, auditId: string, options?: CallOptions): Promise<boolean>;
  /** The document an account's Idempotency-Key produced, if any. */
  findByIdempotencyKey(
    accountId: string,
    key: string,
    options?: CallOptions,
  ): Promise<TEarlierDocument | undefined>;
  /**
   * `key.reserve-document`: count one document against the account's plan for this UTC month,
   * atomically; `permission_denied` when the month's quota is used up (a `RefusedError`, counted
   * by the edge as a refusal by quota).
   */
  reserveDocument(accountId: string, options?: CallOptions): Promise<{ readonly reservationId: string }>;
  /** `key.release-document`: give a reservation back (the document was not created). Idempotent. */
  releaseDocument(accountId: string, reservationId: string, options?: CallOptions): Promise<void>;
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
  signPdf: (request, options) =>
    deps.bus.request(PdfSign, request, { timeoutMs: options?.timeoutMs ?? deps.signTimeoutMs }),
  recordDocument: async (record, options) => void (await deps.bus.request(DocumentRecord, record, options)),
  documentExists: (accountId, auditId, options) =>
    deps.bus.request(DocumentGet, { accountId, auditId }, options).then(
      () => true,
      (err: unknown) => unlessNotFound(err, false),
    ),
  findByIdempotencyKey: (accountId, key, options) =>
    deps.bus
      .request(DocumentFindByIdempotencyKey, { accountId, key }, options)
      .catch((err: unknown) => unlessNotFound(err, undefined)),
  reserveDocument: (accountId, options) =>
    deps.bus.request(DocumentQuotaReserve, { accountId }, options).catch((err: unknown) => {
      // The key service refuses with `permission_denied` only when the month's quota is used up.
      if (err instanceof ServiceError && err.code === 'permission_denied')
        throw new RefusedError(err.code, err.message, 'quota', err.field);
      throw err;
    }),
  releaseDocument: async (accountId, reservationId, options) =>
    void (await deps.bus.request(DocumentQuotaRelease, { accountId, reservationId }, options)),
  openObject: (key) => deps.blob.get(key),
  removeObject: (key) => deps.blob.remove(key),
  logger: deps.logger,
});

/** Time kept back for recording a signed document when the rest of a request's time is handed out. */
export const RECORD_RESERVE_MS = 5_000;
/** Time for the clean-up calls after a failure (was it recorded after all? give the quota back). */
export const CLEAN_UP_MS = 2_000;

/**
 * The same ports, with every call given what is left of one deadline for the whole request instead
 * of a timeout of its own each, so that a request answers by its deadline (plus `CLEAN_UP_MS` when a
 * failure needs cleaning up) however many calls it makes and whichever of them hangs.
 */
export const withDeadline = (ports: SigningPorts, deadline: number): SigningPorts => {
  const left = (reserve: number) => ({ timeoutMs: Math.max(250, deadline - Date.now() - reserve) });
  return {
    ...ports,
    findByIdempotencyKey: (accountId, key) =>
      ports.findByIdempotencyKey(accountId, key, left(RECORD_RESERVE_MS)),
    reserveDocument: (accountId) => ports.reserveDocument(accountId, left(RECORD_RESERVE_MS)),
    signPdf: (request) => ports.signPdf(request, left(RECORD_RESERVE_MS)),
    recordDocument: (record) => ports.recordDocument(record, left(0)),
    documentExists: (accountId, auditId) =>
      ports.documentExists(accountId, auditId, { timeoutMs: CLEAN_UP_MS }),
    releaseDocument: (accountId, reservationId) =>
      ports.releaseDocument(accountId, reservationId, { timeoutMs: CLEAN_UP_MS }),
  };
};
