import type { Readable } from 'node:stream';
import type { BlobStore } from '@esign/blob';
import { RequestTimeoutError, type Bus } from '@esign/bus';
import {
  AccountEmbedOriginsGet,
  AccountEmbedOriginsSet,
  EnvelopeApprove,
  EnvelopeAttachLink,
  EnvelopeCancel,
  EnvelopeClaim,
  EnvelopeCreate,
  EnvelopeDecline,
  EnvelopeDocument,
  EnvelopeFindByToken,
  EnvelopeGet,
  EnvelopeList,
  EnvelopeRecordRevision,
  EnvelopeRecordView,
  EnvelopeRelease,
  EnvelopeRequestCode,
  EnvelopeVerifyCode,
  EnvelopeReplaceRecipient,
  EnvelopeResendRecipient,
  PdfInspect,
  PdfMarkIncomplete,
  PdfSignRevision,
  type TActionReply,
  type TEnvelope,
} from '@esign/contracts';
import type { Logger } from '@esign/telemetry';
import type { z } from 'zod';
import { createEmbedOriginsCache, type EmbedOriginsCache } from './embed-origins-cache';
import { OutcomeUnknownError } from './sending-ports';

export type TCreateEnvelope = z.input<typeof EnvelopeCreate.request>;
export type TEnvelopeList = z.infer<typeof EnvelopeList.reply>;
export type TEnvelopeListRequest = z.infer<typeof EnvelopeList.request>;
export type TEnvelopeDocument = z.infer<typeof EnvelopeDocument.reply>;
export type TEnvelopeLink = z.infer<typeof EnvelopeFindByToken.reply>;
export type TEnvelopeClaim = z.infer<typeof EnvelopeClaim.reply>;
export type TRecordRevision = z.infer<typeof EnvelopeRecordRevision.request>;
export type TSignRevision = z.infer<typeof PdfSignRevision.request>;
export type TSignedRevision = z.infer<typeof PdfSignRevision.reply>;
export type TInspected = z.infer<typeof PdfInspect.reply>;
export type TActRequest = z.infer<typeof EnvelopeApprove.request>;
export type TDeclineRequest = z.infer<typeof EnvelopeDecline.request>;
export type TRecordViewRequest = z.infer<typeof EnvelopeRecordView.request>;
export type TRecordedView = z.infer<typeof EnvelopeRecordView.reply>;
export type TAttachLinkRequest = z.input<typeof EnvelopeAttachLink.request>;
export type TAttachedLink = z.infer<typeof EnvelopeAttachLink.reply>;
export type TVerifyCodeRequest = z.infer<typeof EnvelopeVerifyCode.request>;
export type TCodeVerification = z.infer<typeof EnvelopeVerifyCode.reply>;
export type TCodeRequested = z.infer<typeof EnvelopeRequestCode.reply>;
export type TReplaceRecipient = z.infer<typeof EnvelopeReplaceRecipient.request>;

/**
 * What envelopes need from the world, as plain functions: document-store's envelopes, the signer
 * (inspect, a signer's revision, the copy marked incomplete) and object storage. Production wires them
 * to NATS and S3 (`createEnvelopePorts`). Errors keep their types (`not_found`, `conflict`, …); a
 * create whose answer did not come in time is `OutcomeUnknownError`.
 */
export interface EnvelopePorts {
  inspectPdf(uploadKey: string): Promise<TInspected>;
  create(request: TCreateEnvelope): Promise<TEnvelope>;
  get(accountId: string, envelopeId: string): Promise<TEnvelope>;
  list(request: TEnvelopeListRequest): Promise<TEnvelopeList>;
  cancel(accountId: string, envelopeId: string): Promise<TEnvelope>;
  resendRecipient(accountId: string, envelopeId: string, recipientId: string): Promise<TEnvelope>;
  replaceRecipient(request: TReplaceRecipient): Promise<TEnvelope>;
  document(accountId: string, envelopeId: string): Promise<TEnvelopeDocument>;
  markIncomplete(
    sourceKey: string,
    targetKey: string,
    note: string,
  ): Promise<{ objectKey: string; size: number }>;
  findByToken(tokenHash: string): Promise<TEnvelopeLink>;
  /** Attach a link's token hash to a recipient whose turn has come (`conflict` otherwise). */
  attachLink(request: TAttachLinkRequest): Promise<TAttachedLink>;
  /**
   * The origins allowed to frame the account's embedded signing pages (the key service's), cached for
   * a short while (`EMBED_ORIGINS_CACHE_TTL_MS`); `fresh` asks the key service (and refreshes the cache).
   */
  embedOrigins(accountId: string, options?: { fresh?: boolean }): Promise<readonly string[]>;
  /** Replace the account's origins (the key service checks and stores them); this gateway's cache follows at once. */
  setEmbedOrigins(accountId: string, origins: readonly string[]): Promise<readonly string[]>;
  recordView(view: TRecordViewRequest): Promise<TRecordedView>;
  /** A `requireEmailCode` recipient's one-time code (`envelope.verify-code`). */
  verifyCode(request: TVerifyCodeRequest): Promise<TCodeVerification>;
  /** A new one-time code emailed (`envelope.request-code`). */
  requestCode(tokenHash: string): Promise<TCodeRequested>;
  claim(tokenHash: string): Promise<TEnvelopeClaim>;
  release(tokenHash: string): Promise<void>;
  signRevision(request: TSignRevision, timeoutMs: number): Promise<TSignedRevision>;
  /** `OutcomeUnknownError` when its answer did not come in time (the revision may be the head now). */
  recordRevision(request: TRecordRevision): Promise<TActionReply>;
  approve(request: TActRequest): Promise<TActionReply>;
  decline(request: TDeclineRequest): Promise<TActionReply>;
  copyObject(sourceKey: string, destKey: string, options?: { contentType?: string }): Promise<void>;
  statObject(key: string): Promise<{ readonly size: number } | undefined>;
  openObject(key: string): Promise<Readable>;
  removeObject(key: string): Promise<void>;
  readonly logger: Logger;
}

const asOutcome = (err: unknown): unknown =>
  err instanceof RequestTimeoutError ? new OutcomeUnknownError(err.message) : err;

/** The envelope ports on the bus and object storage. Built once at start-up. */
export const createEnvelopePorts = (deps: {
  bus: Pick<Bus, 'request'>;
  blob: Pick<BlobStore, 'copy' | 'remove' | 'stat' | 'get'>;
  logger: Logger;
  /** How long the signer may take for one document (inspect, a revision, a marked copy). */
  signTimeoutMs: number;
  /** The accounts' embed origins (default: none cached). */
  embedOriginsCache?: EmbedOriginsCache;
}): EnvelopePorts => {
  const originsCache = deps.embedOriginsCache ?? createEmbedOriginsCache({ ttlMs: 0 });
  const readOrigins = async (accountId: string) =>
    (await deps.bus.request(AccountEmbedOriginsGet, { accountId })).origins;
  return {
    inspectPdf: (uploadKey) => deps.bus.request(PdfInspect, { uploadKey }, { timeoutMs: deps.signTimeoutMs }),
    // document-store asks pdf-signer for revision 0 (pdf.prepare-envelope) before it answers.
    create: (request) =>
      deps.bus.request(EnvelopeCreate, request, { timeoutMs: deps.signTimeoutMs }).catch((err: unknown) => {
        throw asOutcome(err);
      }),
    get: (accountId, envelopeId) => deps.bus.request(EnvelopeGet, { accountId, envelopeId }),
    list: (request) => deps.bus.request(EnvelopeList, request),
    cancel: (accountId, envelopeId) => deps.bus.request(EnvelopeCancel, { accountId, envelopeId }),
    resendRecipient: (accountId, envelopeId, recipientId) =>
      deps.bus.request(EnvelopeResendRecipient, { accountId, envelopeId, recipientId }),
    replaceRecipient: (request) => deps.bus.request(EnvelopeReplaceRecipient, request),
    document: (accountId, envelopeId) => deps.bus.request(EnvelopeDocument, { accountId, envelopeId }),
    markIncomplete: (sourceKey, targetKey, note) =>
      deps.bus.request(PdfMarkIncomplete, { sourceKey, targetKey, note }, { timeoutMs: deps.signTimeoutMs }),
    findByToken: (tokenHash) => deps.bus.request(EnvelopeFindByToken, { tokenHash }),
    attachLink: (request) => deps.bus.request(EnvelopeAttachLink, request),
    async embedOrigins(accountId, options) {
      if (!options?.fresh) return originsCache.get(accountId, () => readOrigins(accountId));
      const origins = await readOrigins(accountId);
      originsCache.put(accountId, origins);
      return origins;
    },
    async setEmbedOrigins(accountId, origins) {
      const stored = (await deps.bus.request(AccountEmbedOriginsSet, { accountId, origins: [...origins] }))
        .origins;
      originsCache.put(accountId, stored);
      return stored;
    },
    recordView: (view) => deps.bus.request(EnvelopeRecordView, view),
    verifyCode: (request) => deps.bus.request(EnvelopeVerifyCode, request),
    requestCode: (tokenHash) => deps.bus.request(EnvelopeRequestCode, { tokenHash }),
    claim: (tokenHash) => deps.bus.request(EnvelopeClaim, { tokenHash }),
    release: async (tokenHash) => void (await deps.bus.request(EnvelopeRelease, { tokenHash })),
    signRevision: (request, timeoutMs) => deps.bus.request(PdfSignRevision, request, { timeoutMs }),
    recordRevision: (request) =>
      deps.bus.request(EnvelopeRecordRevision, request).catch((err: unknown) => {
        throw asOutcome(err);
      }),
    approve: (request) => deps.bus.request(EnvelopeApprove, request),
    decline: (request) => deps.bus.request(EnvelopeDecline, request),
    copyObject: (sourceKey, destKey, options) => deps.blob.copy(sourceKey, destKey, options),
    statObject: (key) => deps.blob.stat(key),
    openObject: (key) => deps.blob.get(key),
    removeObject: (key) => deps.blob.remove(key),
    logger: deps.logger,
  };
};
