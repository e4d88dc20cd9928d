import { signedFileNameFor } from '@esign/contracts';
import type { PdfSign } from '@esign/contracts';
import type { BlobStore } from '@esign/blob';
import type { RequestHandler } from '@esign/bus';
import type { OutageLog } from '@esign/telemetry';
import type { Signer, TPadesLevel } from '../domain/assemble-signer';
import { withUpload } from './read-upload';

/** Where signed PDFs are kept. */
export const signedKeyFor = (accountId: string, auditId: string): string =>
  `signed/${accountId}/${auditId}.pdf`;

/**
 * `pdf.sign`: fetch the upload (claim check), sign it, store the signed PDF under
 * `signed/<accountId>/<auditId>.pdf`, and delete the upload whatever happened.
 */
export const createSignPdfHandler =
  (deps: {
    blob: BlobStore;
    signer: Signer;
    maxFileBytes: number;
    /** PUBLIC_BASE_URL: the audit page prints the document's verification address under it. */
    verifyBaseUrl?: string;
    /** PADES_LEVEL (default B-T here; the service's configuration defaults to B-LT). */
    padesLevel?: TPadesLevel;
    /** Where failed upload deletions while storage is away are logged: one line per outage. */
    uploadCleanupOutage?: OutageLog;
  }): RequestHandler<typeof PdfSign> =>
  (request, ctx) => {
    const { blob, signer } = deps;
    return withUpload(
      {
        blob,
        uploadKey: request.uploadKey,
        maxBytes: deps.maxFileBytes,
        consume: true,
        logger: ctx.logger,
        cleanupOutage: deps.uploadCleanupOutage,
      },
      async (bytes) => {
        const result = await signer.sign({
          bytes,
          kind: request.kind,
          fileName: request.fileName,
          signature: request.signature,
          positions: request.positions,
          signer: request.signer,
          receivedAt: request.receivedAt,
          // A reserved audit ID (a signing request's) when the caller has one.
          ...(request.auditId === undefined ? {} : { auditId: request.auditId }),
          ...(deps.verifyBaseUrl ? { verifyBaseUrl: deps.verifyBaseUrl } : {}),
          ...(deps.padesLevel ? { padesLevel: deps.padesLevel } : {}),
        });
        const signedKey = signedKeyFor(request.accountId, result.auditId);
        await blob.put(signedKey, result.bytes, { contentType: 'application/pdf' });
        ctx.logger.info('document signed', {
          auditId: result.auditId,
          pages: result.pageCount,
          bytes: result.bytes.length,
          kind: request.kind,
          // Round trip to the time-stamping authority, inside the signing time.
          ...(result.timestamp ? { tsaMs: result.timestamp.tsaMs, tsa: result.timestamp.url } : {}),
        });
        return {
          auditId: result.auditId,
          signedAt: result.signedAt,
          signedKey,
          signedFileName: signedFileNameFor(request.fileName),
          fileHash: result.fileHash,
          originalHash: result.originalHash,
          size: result.bytes.length,
          pageCount: result.pageCount,
          events: result.events,
          ...(result.timestamp
            ? { timestamp: { time: result.timestamp.time, authority: result.timestamp.authority } }
            : {}),
        };
      },
    );
  };
