import {
  ServiceError,
  signedFileNameFor,
  type TDocumentKind,
  type TPosition,
  type TSignature,
  type TSigner,
} from '@esign/contracts';
import { findEarlier, winnerOfRace, type Idempotency } from './idempotency';
import { withDeadline, type SigningPorts, type TEarlierDocument } from './ports';
import { recordOrDiscard } from './record-or-discard';

/** A document to sign: an upload already in object storage (claim check) and what to stamp on it. */
export interface SignDocumentInput {
  readonly accountId: string;
  readonly upload: { readonly key: string; readonly fileName: string; readonly kind: TDocumentKind };
  readonly signature: TSignature;
  readonly positions: readonly TPosition[];
  /**
   * Whether the client sent `positions` (errors about a position then name `positions[i]`) or the
   * single `x`, `y`, `page`, `width` fields.
   */
  readonly usedPositions: boolean;
  readonly signer: TSigner;
  /** When the request arrived (ISO 8601), for the audit log. */
  readonly receivedAt: string;
  readonly idempotency?: Idempotency;
  /**
   * When the answer is due (epoch ms): every call gets what is left of it (`withDeadline`), so no
   * step can hold the request past it. Without one, each call has its own timeout.
   */
  readonly deadline?: number;
  /**
   * The document signs a signing request (send for signing): it gets the request's reserved audit
   * ID, and recording it completes the request (`document.record` with `signingRequest`).
   */
  readonly signingRequest?: { readonly sendId: string; readonly tokenHash: string; readonly auditId: string };
  /**
   * The account's plan has no monthly limit, as the caller's key or session said: nothing can be
   * refused, so no reservation is made before signing; the record asks the key service to count the
   * document from `events.document.signed` instead (`countFromRecord`). Absent: reserve first.
   */
  readonly unlimitedPlan?: boolean;
}

/** A signed document in object storage, ready to be streamed back. */
export interface SignedDocument {
  readonly auditId: string;
  readonly signedAt: string;
  readonly fileHash: string;
  readonly objectKey: string;
  readonly size: number;
  /** File name for Content-Disposition. */
  readonly downloadName: string;
  /** True when an earlier request under the same Idempotency-Key produced it. */
  readonly replayed: boolean;
  readonly pageCount?: number;
}

const replayOf = (earlier: TEarlierDocument): SignedDocument => ({
  auditId: earlier.auditId,
  signedAt: earlier.signedAt,
  fileHash: earlier.fileHash,
  objectKey: earlier.objectKey,
  size: earlier.size,
  downloadName: signedFileNameFor(earlier.fileName),
  replayed: true,
});

/**
 * The signer names a position as `positions.<i>.<field>`; say it the way the client wrote it:
 * `positions[i].field`, or just `page` when the client sent the single x/y/page/width fields.
 */
const inClientTerms = (err: unknown, usedPositions: boolean): unknown => {
  if (!(err instanceof ServiceError) || !err.field?.startsWith('positions.')) return err;
  const [, index, leaf] = err.field.split('.');
  const field = usedPositions ? `positions[${index}]${leaf ? `.${leaf}` : ''}` : (leaf ?? 'page');
  const message = err.message.replace(/^positions\.\d+(\.\w+)?: /, usedPositions ? `${field}: ` : '');
  return new ServiceError(err.code, message, field);
};

/** Give a reservation back; a failure to do so costs the customer one document, not the answer. */
const release = async (ports: SigningPorts, accountId: string, reservationId: string): Promise<void> => {
  await ports.releaseDocument(accountId, reservationId).catch((err: unknown) => {
    ports.logger.warn('could not release a document reservation', { accountId, reservationId, err });
  });
};

/**
 * The sign workflow, whoever calls it (the API, the public signing page, the dashboard): answer a
 * retry with the document its key produced; otherwise reserve one document of the plan's monthly
 * quota (`key.reserve-document`: `permission_denied` when it is used up), sign the upload
 * (`pdf.sign`), record the result durably (`document.record`), and hand back where the signed PDF
 * is. Nothing is left behind on failure: the upload is removed, a signed PDF without a record is
 * discarded, and the reservation is given back (`key.release-document`), as it is when a racing
 * retry under the same Idempotency-Key won: a document is counted once. On a plan without a limit
 * (`unlimitedPlan`) there is no reservation: the document is counted from its record, once.
 */
export const signDocument = async (
  untimedPorts: SigningPorts,
  input: SignDocumentInput,
): Promise<SignedDocument> => {
  const { accountId, idempotency } = input;
  const ports = input.deadline === undefined ? untimedPorts : withDeadline(untimedPorts, input.deadline);
  try {
    if (idempotency) {
      const earlier = await findEarlier(ports, accountId, idempotency);
      if (earlier) {
        // A retry of a request that was signed: the same document again, nothing signed twice.
        await ports.removeObject(input.upload.key).catch(() => undefined);
        return replayOf(earlier);
      }
    }
    if (input.unlimitedPlan) return await signAndRecord(ports, input);
    // Counted before any work, so concurrent requests at the limit cannot create one too many.
    const { reservationId } = await ports.reserveDocument(accountId);
    const result = await signAndRecord(ports, input).catch(async (err: unknown) => {
      await release(ports, accountId, reservationId);
      throw err;
    });
    // A racing request under the same key made the document: it was counted by that request.
    if (result.replayed) await release(ports, accountId, reservationId);
    return result;
  } catch (err) {
    // The signer deletes the upload when it is done with it; if it never got it (or we stopped
    // waiting), it is ours to remove. Removing twice is harmless.
    await ports.removeObject(input.upload.key).catch(() => undefined);
    throw err;
  }
};

/** Sign the upload and record it (a document reserved already, or counted from its record). */
const signAndRecord = async (ports: SigningPorts, input: SignDocumentInput): Promise<SignedDocument> => {
  const { accountId, idempotency } = input;
  const signed = await ports
    .signPdf({
      accountId,
      uploadKey: input.upload.key,
      fileName: input.upload.fileName,
      kind: input.upload.kind,
      signature: input.signature,
      positions: [...input.positions],
      signer: input.signer,
      receivedAt: input.receivedAt,
      ...(input.signingRequest ? { auditId: input.signingRequest.auditId } : {}),
    })
    .catch((err: unknown) => {
      throw inClientTerms(err, input.usedPositions);
    });
  try {
    // Answered only once the record is durable: a GET right after finds it.
    await recordOrDiscard(ports, {
      accountId,
      auditId: signed.auditId,
      fileName: input.upload.fileName,
      signerName: input.signer.name,
      signerEmail: input.signer.email,
      ipAddress: input.signer.ipAddress,
      userAgent: input.signer.userAgent,
      signedAt: signed.signedAt,
      fileHash: signed.fileHash,
      originalHash: signed.originalHash,
      objectKey: signed.signedKey,
      size: signed.size,
      pageCount: signed.pageCount,
      events: signed.events,
      idempotency,
      ...(input.unlimitedPlan ? { countFromRecord: true as const } : {}),
      ...(input.signingRequest
        ? {
            signingRequest: {
              sendId: input.signingRequest.sendId,
              tokenHash: input.signingRequest.tokenHash,
            },
          }
        : {}),
    });
  } catch (err) {
    // Another request under the same key was recorded meanwhile (ours was discarded): answer with
    // that document, as any later retry would be.
    return replayOf(await winnerOfRace(ports, accountId, idempotency, err));
  }
  return {
    auditId: signed.auditId,
    signedAt: signed.signedAt,
    fileHash: signed.fileHash,
    objectKey: signed.signedKey,
    size: signed.size,
    downloadName: signed.signedFileName,
    replayed: false,
    pageCount: signed.pageCount,
  };
};
