import type { BlobStore } from '@esign/blob';
import { RequestTimeoutError, type Bus } from '@esign/bus';
import {
  PdfInspect,
  ServiceError,
  SigningCancel,
  SigningCreate,
  SigningResend,
  SigningStatus,
  type TSigningRequestCreated,
  type TSigningStatusReply,
} from '@esign/contracts';
import type { Logger } from '@esign/telemetry';
import type { z } from 'zod';

/** What `signing.create` is asked (the expiry may be left to its default). */
export type TCreateSigningRequest = z.input<typeof SigningCreate.request>;
export type TCanceledRequest = z.infer<typeof SigningCancel.reply>;
export type TResentRequest = z.infer<typeof SigningResend.reply>;

/**
 * The request may have been carried out all the same: its answer did not come in time (unlike
 * `NotDeliveredError`, or a refusal, after which nothing was done). Answered like any `unavailable`.
 */
export class OutcomeUnknownError extends ServiceError {
  constructor(message: string) {
    super('unavailable', message);
  }
}

/**
 * What send for signing needs from the world, as plain functions: the signer (page count),
 * document-store (signing requests) and object storage. Production wires them to NATS and S3
 * (`createSendingPorts`); tests pass typed fakes (`fakeSendingPorts`). Errors keep their types.
 */
export interface SendingPorts {
  /** `pdf.inspect`: how many pages an upload has (the signer reads it by its key; nothing is kept). */
  inspectPdf(uploadKey: string): Promise<{ readonly pageCount: number }>;
  /**
   * `signing.create`: a signing request (the recipient is emailed), or the earlier one of the same
   * Idempotency-Key (`replayed`). `OutcomeUnknownError` when no answer came in time.
   */
  createSigningRequest(request: TCreateSigningRequest): Promise<TSigningRequestCreated>;
  /** `signing.status`: where an account's request stands, by audit ID or send ID. */
  signingStatus(accountId: string, id: string): Promise<TSigningStatusReply>;
  /** `signing.cancel`: cancel an account's pending request. */
  cancelSigningRequest(accountId: string, sendId: string): Promise<TCanceledRequest>;
  /** `signing.resend`: email a pending request's link again (a new link). */
  resendSigningRequest(accountId: string, sendId: string): Promise<TResentRequest>;
  /**
   * Copy an object of storage on the server (no byte passes through the gateway), with its own
   * content type when given.
   */
  copyObject(sourceKey: string, destKey: string, options?: { contentType?: string }): Promise<void>;
  /** Remove an object of storage (removing a missing one is not an error). */
  removeObject(key: string): Promise<void>;
  readonly logger: Logger;
}

/** A timeout of the bus: the request was sent, and whether it was carried out is not known. */
const asOutcome = (err: unknown): unknown =>
  err instanceof RequestTimeoutError ? new OutcomeUnknownError(err.message) : err;

/** The sending ports on the bus and object storage. Built once at start-up. */
export const createSendingPorts = (deps: {
  bus: Pick<Bus, 'request'>;
  blob: Pick<BlobStore, 'copy' | 'remove'>;
  logger: Logger;
  /** How long the signer may take to count an upload's pages. */
  inspectTimeoutMs: number;
}): SendingPorts => ({
  inspectPdf: (uploadKey) =>
    deps.bus.request(PdfInspect, { uploadKey }, { timeoutMs: deps.inspectTimeoutMs }),
  createSigningRequest: (request) =>
    deps.bus.request(SigningCreate, request).catch((err: unknown) => {
      throw asOutcome(err);
    }),
  signingStatus: (accountId, id) => deps.bus.request(SigningStatus, { accountId, id }),
  cancelSigningRequest: (accountId, sendId) => deps.bus.request(SigningCancel, { accountId, sendId }),
  resendSigningRequest: (accountId, sendId) => deps.bus.request(SigningResend, { accountId, sendId }),
  copyObject: (sourceKey, destKey, options) => deps.blob.copy(sourceKey, destKey, options),
  removeObject: (key) => deps.blob.remove(key),
  logger: deps.logger,
});
