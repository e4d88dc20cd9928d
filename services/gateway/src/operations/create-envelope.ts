import type { TEnvelope, TEnvelopeRecipientInput } from '@esign/contracts';
import { ServiceError } from '@esign/contracts';
import type { Idempotency } from './idempotency';
import { pendingKeyFor } from './send-for-signing';
import { OutcomeUnknownError } from './sending-ports';
import type { EnvelopePorts } from './envelope-ports';
import { checkEnvelope, fieldHeightPercent } from './envelope-rules';

export interface CreateEnvelopeInput {
  readonly accountId: string;
  readonly senderEmail: string;
  readonly upload: { readonly key: string; readonly fileName: string; readonly size: number };
  readonly recipients: readonly TEnvelopeRecipientInput[];
  readonly subject?: string;
  readonly message?: string;
  readonly expiresInDays?: number;
  readonly reminders?: { firstAfterDays: number; everyDays: number; max: number };
  readonly idempotency?: Idempotency;
}

/**
 * Create an envelope: read the upload as the signer would (`pdf.inspect`: pages, their sizes, the
 * file's hash), check every recipient and field against it (400 naming the first fault), copy the
 * upload on the server to its pending place, and create the envelope (`envelope.create`, which opens
 * the first group's turn). Clean-up as for send: the pending copy is removed when the create is refused
 * or never delivered, kept (logged) when its answer timed out, removed on a replay.
 */
export const createEnvelope = async (
  ports: EnvelopePorts,
  input: CreateEnvelopeInput,
): Promise<TEnvelope> => {
  const { accountId, upload } = input;
  const inspected = await ports.inspectPdf(upload.key);
  const { pageSizes, fileHash } = inspected;
  if (!pageSizes || !fileHash) {
    throw new ServiceError(
      'unavailable',
      'The signer is older than envelopes: try again once it is updated.',
    );
  }
  checkEnvelope(input.recipients, pageSizes);

  const pendingKey = pendingKeyFor(accountId);
  await ports.copyObject(upload.key, pendingKey, { contentType: 'application/pdf' });
  await ports.removeObject(upload.key).catch(() => undefined);
  let envelope: TEnvelope;
  try {
    envelope = await ports.create({
      accountId,
      senderEmail: input.senderEmail,
      subject: input.subject,
      message: input.message ?? null,
      fileName: upload.fileName,
      objectKey: pendingKey,
      originalHash: fileHash,
      pageCount: inspected.pageCount,
      expiresInDays: input.expiresInDays,
      reminders: input.reminders,
      // Every field with its height as checked here (the defaults depend on the page's shape, which
      // only this step knows): document-store, the signer and the page then draw the same box.
      recipients: input.recipients.map((recipient) => ({
        ...recipient,
        fields: recipient.fields.map((field) => {
          const page = pageSizes[field.page];
          const height = page ? fieldHeightPercent(field, page) : field.height;
          return height === undefined
            ? field
            : { ...field, height: Math.max(1, Math.floor(height * 100) / 100) };
        }),
      })),
      idempotency: input.idempotency,
    });
  } catch (err) {
    if (err instanceof OutcomeUnknownError) {
      ports.logger.warn('original kept: whether the envelope was created is unknown', { pendingKey, err });
    } else {
      await ports.removeObject(pendingKey).catch(() => undefined);
    }
    throw err;
  }
  if (envelope.replayed) await ports.removeObject(pendingKey).catch(() => undefined);
  ports.logger.info(envelope.replayed ? 'envelope replayed' : 'envelope sent', {
    envelopeId: envelope.envelopeId,
    auditId: envelope.auditId,
    recipients: envelope.recipients.length,
    pages: inspected.pageCount,
    bytes: upload.size,
  });
  return envelope;
};
