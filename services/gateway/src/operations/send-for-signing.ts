import { randomUUID } from 'node:crypto';
import { ServiceError, type TPosition, type TSigningRequestCreated } from '@esign/contracts';
import type { Idempotency } from './idempotency';
import { OutcomeUnknownError, type SendingPorts } from './sending-ports';

/** Where originals of signing requests wait (document-store refuses any other key; no lifecycle rule). */
export const pendingKeyFor = (accountId: string): string => `pending/${accountId}/${randomUUID()}.pdf`;

/** Where the signature box goes when the sender gives no positions (the sign endpoint's defaults). */
export const DEFAULT_POSITIONS: readonly TPosition[] = [{ x: 50, y: 85, page: 0, width: 25 }];

/** A PDF to send for signing: an upload already in object storage (claim check) and the request. */
export interface SendForSigningInput {
  readonly accountId: string;
  /** The sending account's email: where sender notifications go. */
  readonly senderEmail: string;
  readonly upload: { readonly key: string; readonly fileName: string; readonly size: number };
  readonly recipient: { readonly email: string; readonly name: string };
  readonly subject?: string;
  readonly message?: string;
  /** Where the signature goes, as the sender gave it; absent: `DEFAULT_POSITIONS`. */
  readonly positions?: readonly TPosition[];
  readonly expiresInDays: number;
  readonly idempotency?: Idempotency;
}

/** The signing request, and whether an earlier request under the same Idempotency-Key made it. */
export type SentForSigning = Omit<TSigningRequestCreated, 'replayed'> & { readonly replayed: boolean };

/** `positions[i].page` beyond the document's pages, said the way the client wrote it. */
const checkPages = (positions: readonly TPosition[], pageCount: number, usedPositions: boolean) => {
  positions.forEach((position, i) => {
    if (position.page < pageCount) return;
    const field = usedPositions ? `positions[${i}].page` : 'page';
    const pages = `${pageCount} page${pageCount === 1 ? '' : 's'}`;
    throw new ServiceError(
      'invalid_argument',
      `${field}: page ${position.page} does not exist (the document has ${pages})`,
      usedPositions ? `positions[${i}].page` : 'positions',
    );
  });
};

/**
 * The send workflow: count the upload's pages (`pdf.inspect`) and refuse a position beyond them
 * (400 naming the field), copy the upload on the server to its pending place (the `uploads/` prefix
 * expires within a day; the original must wait until the request ends), and create the request
 * (`signing.create`, which emails the recipient). The upload is the caller's to remove if this
 * fails before the copy. When the request is refused or never delivered, the pending copy is removed;
 * when its answer timed out, the request may exist and need its original, so the copy is kept
 * (logged). A replay under the same Idempotency-Key uses the first request's original: the new copy
 * is removed.
 */
export const sendForSigning = async (
  ports: SendingPorts,
  input: SendForSigningInput,
): Promise<SentForSigning> => {
  const { accountId, upload } = input;
  const positions = [...(input.positions ?? DEFAULT_POSITIONS)];
  const { pageCount } = await ports.inspectPdf(upload.key);
  checkPages(positions, pageCount, input.positions !== undefined);

  const pendingKey = pendingKeyFor(accountId);
  await ports.copyObject(upload.key, pendingKey, { contentType: 'application/pdf' });
  await ports.removeObject(upload.key).catch(() => undefined);
  let created: TSigningRequestCreated;
  try {
    created = await ports.createSigningRequest({
      accountId,
      senderEmail: input.senderEmail,
      recipientEmail: input.recipient.email,
      recipientName: input.recipient.name,
      subject: input.subject,
      message: input.message ?? null,
      fileName: upload.fileName,
      objectKey: pendingKey,
      positions,
      pageCount,
      expiresInDays: input.expiresInDays,
      idempotency: input.idempotency,
    });
  } catch (err) {
    if (err instanceof OutcomeUnknownError) {
      ports.logger.warn('original kept: whether the signing request was created is unknown', {
        pendingKey,
        err,
      });
    } else {
      await ports.removeObject(pendingKey).catch(() => undefined);
    }
    throw err;
  }
  const replayed = created.replayed === true;
  // A replay: the first request's original is the one in use.
  if (replayed) await ports.removeObject(pendingKey).catch(() => undefined);
  ports.logger.info(replayed ? 'signing request replayed' : 'signing request sent', {
    sendId: created.sendId,
    auditId: created.auditId,
    pages: pageCount,
    bytes: upload.size,
  });
  return {
    sendId: created.sendId,
    auditId: created.auditId,
    recipientEmail: created.recipientEmail,
    sentAt: created.sentAt,
    status: created.status,
    expiresAt: created.expiresAt,
    replayed,
  };
};
