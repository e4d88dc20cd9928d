import { signedFileNameFor } from '@esign/contracts';
import type {
  PdfCompleteEnvelope,
  PdfMarkIncomplete,
  PdfPrepareEnvelope,
  PdfSignRevision,
} from '@esign/contracts';
import type { BlobStore } from '@esign/blob';
import type { RequestHandler } from '@esign/bus';
import type { Signer, TPadesLevel } from '../domain/assemble-signer';
import { signedKeyFor } from './sign-pdf';
import { checkTargetKey, readObject } from './read-upload';

/** What the envelope handlers share. */
export interface EnvelopeHandlerDeps {
  readonly blob: BlobStore;
  readonly signer: Pick<Signer, 'envelopes'>;
  readonly maxFileBytes: number;
  /** PADES_LEVEL (default B-T here, as for `pdf.sign`). */
  readonly padesLevel?: TPadesLevel;
}

const PDF = { contentType: 'application/pdf' };

/**
 * `pdf.sign-revision`: read `sourceKey` (never deleted), draw the signer's fields and append their
 * PAdES signature as an incremental update on a signing worker, store the result under `targetKey`.
 */
export const createSignRevisionHandler =
  (deps: EnvelopeHandlerDeps): RequestHandler<typeof PdfSignRevision> =>
  async (request, ctx) => {
    checkTargetKey(request.targetKey, 'targetKey');
    const bytes = await readObject({
      blob: deps.blob,
      key: request.sourceKey,
      maxBytes: deps.maxFileBytes,
      field: 'sourceKey',
    });
    const result = await deps.signer.envelopes.signRevision({
      bytes,
      auditId: request.auditId,
      fileName: request.fileName,
      signer: request.signer,
      signature: request.signature,
      ...(request.initials ? { initials: request.initials } : {}),
      fields: request.fields.map(({ field, value, fieldName }) => ({
        field,
        ...(value !== undefined ? { value } : {}),
        ...(fieldName ? { fieldName } : {}),
      })),
      reason: request.reason,
      ...(deps.padesLevel ? { padesLevel: deps.padesLevel } : {}),
    });
    await deps.blob.put(request.targetKey, result.bytes, PDF);
    ctx.logger.info('envelope revision signed', {
      auditId: request.auditId,
      pages: result.pageCount,
      bytes: result.bytes.length,
      fields: request.fields.length,
    });
    return {
      objectKey: request.targetKey,
      fileHash: result.fileHash,
      size: result.bytes.length,
      signedAt: result.signedAt,
      pageCount: result.pageCount,
      events: result.events,
    };
  };

/**
 * `pdf.complete-envelope`: read the last signer's revision, append the certificate of completion, the
 * audit metadata and the service's seal on a signing worker, store `signed/<accountId>/<auditId>.pdf`.
 */
export const createCompleteEnvelopeHandler =
  (deps: EnvelopeHandlerDeps): RequestHandler<typeof PdfCompleteEnvelope> =>
  async (request, ctx) => {
    const bytes = await readObject({
      blob: deps.blob,
      key: request.sourceKey,
      maxBytes: deps.maxFileBytes,
      field: 'sourceKey',
    });
    const result = await deps.signer.envelopes.completeEnvelope({
      bytes,
      auditId: request.auditId,
      envelopeId: request.envelopeId,
      fileName: request.fileName,
      subject: request.subject,
      senderEmail: request.senderEmail,
      createdAt: request.createdAt,
      originalHash: request.originalHash,
      recipients: request.recipients,
      ...(deps.padesLevel ? { padesLevel: deps.padesLevel } : {}),
    });
    const signedKey = signedKeyFor(request.accountId, request.auditId);
    await deps.blob.put(signedKey, result.bytes, PDF);
    ctx.logger.info('envelope completed', {
      auditId: request.auditId,
      envelopeId: request.envelopeId,
      pages: result.pageCount,
      bytes: result.bytes.length,
    });
    return {
      signedKey,
      signedFileName: signedFileNameFor(request.fileName),
      fileHash: result.fileHash,
      size: result.bytes.length,
      pageCount: result.pageCount,
      signedAt: result.signedAt,
      events: result.events,
    };
  };

/** `pdf.mark-incomplete`: a rewritten copy of `sourceKey` marked on every page, stored under `targetKey`. */
export const createMarkIncompleteHandler =
  (deps: Omit<EnvelopeHandlerDeps, 'padesLevel'>): RequestHandler<typeof PdfMarkIncomplete> =>
  async (request) => {
    checkTargetKey(request.targetKey, 'targetKey');
    const bytes = await readObject({
      blob: deps.blob,
      key: request.sourceKey,
      maxBytes: deps.maxFileBytes,
      field: 'sourceKey',
    });
    const marked = await deps.signer.envelopes.markIncomplete({ bytes, note: request.note });
    await deps.blob.put(request.targetKey, marked.bytes, PDF);
    return { objectKey: request.targetKey, size: marked.bytes.length };
  };

/**
 * `pdf.prepare-envelope`: revision 0 of an envelope's document (the original with every recipient's
 * fields as form fields, the certificate's pages and the audit metadata), stored under `targetKey`.
 */
export const createPrepareEnvelopeHandler =
  (deps: Omit<EnvelopeHandlerDeps, 'padesLevel'>): RequestHandler<typeof PdfPrepareEnvelope> =>
  async (request, ctx) => {
    checkTargetKey(request.targetKey, 'targetKey');
    const bytes = await readObject({
      blob: deps.blob,
      key: request.sourceKey,
      maxBytes: deps.maxFileBytes,
      field: 'sourceKey',
    });
    const prepared = await deps.signer.envelopes.prepareEnvelope({
      bytes,
      auditId: request.auditId,
      envelopeId: request.envelopeId,
      fileName: request.fileName,
      subject: request.subject,
      senderEmail: request.senderEmail,
      createdAt: request.createdAt,
      originalHash: request.originalHash,
      recipients: request.recipients,
    });
    await deps.blob.put(request.targetKey, prepared.bytes, PDF);
    ctx.logger.info('envelope prepared', {
      auditId: request.auditId,
      envelopeId: request.envelopeId,
      pages: prepared.pageCount,
      bytes: prepared.bytes.length,
    });
    return {
      objectKey: request.targetKey,
      fileHash: prepared.fileHash,
      size: prepared.bytes.length,
      pageCount: prepared.pageCount,
      certificatePages: prepared.certificatePages,
      events: prepared.events,
    };
  };
