import {
  EnvelopeSent,
  MAX_SIGNING_SUBJECT_LENGTH,
  ServiceError,
  type EnvelopeCreate,
  type PdfPrepareEnvelope,
  type TEnvelope,
  ZReminderSettings,
} from '@esign/contracts';
import { SCRATCH_PREFIX, type BlobStore } from '@esign/blob';
import { newAuditId, randomBase62 } from '@esign/ids';
import type { Logger } from '@esign/telemetry';
import type { z } from 'zod';
import {
  appendStory,
  EnvelopeIdempotencyKeyTaken,
  findEnvelope,
  findEnvelopeByIdempotencyKey,
  insertEnvelope,
  type TEnvelopeAggregate,
  type TRecipientRow,
} from '../../db/envelope-repository';
import { inTransaction, insertOutbox } from '../../db/signing-repository';
import { PENDING_PREFIX } from '../signing/create-signing-request';
import { checkRecipients, withFieldDefaults } from './check-recipients';
import {
  actingOrder,
  envelopeEvent,
  eventRecipient,
  openTurn,
  toEnvelopeView,
  type EnvelopeDeps,
} from './envelope-deps';

const DAY_MS = 24 * 60 * 60 * 1000;

/** pdf-signer's `pdf.prepare-envelope`: revision 0 (the original with every field as a form field and the certificate's pages). */
export type PrepareEnvelopePort = (
  request: z.input<(typeof PdfPrepareEnvelope)['request']>,
) => Promise<z.infer<(typeof PdfPrepareEnvelope)['reply']>>;

/**
 * Revision 0: pdf-signer makes it (`pdf.prepare-envelope`) under `scratch/`, and it is copied into place
 * as the envelope's transaction ends; the scratch copy is removed (else the bucket's lifecycle rule for
 * `scratch/` expires it within a day).
 */
export interface RevisionZeroPorts {
  readonly prepare: PrepareEnvelopePort;
  readonly blob: Pick<BlobStore, 'copy' | 'remove'>;
  readonly logger: Logger;
}

/** `envelope.create`'s deps: without `revisionZero` the head starts as the original (tests of the workflow alone). */
export interface CreateEnvelopeDeps extends EnvelopeDeps {
  readonly revisionZero?: RevisionZeroPorts;
}

/** Where revision 0 of an envelope's document is stored. */
export const preparedKeyFor = (accountId: string, envelopeId: string): string =>
  `envelopes/${accountId}/${envelopeId}/0.pdf`;

/** Where pdf-signer writes revision 0 before the envelope exists: expired by the scratch lifecycle if left. */
export const preparingKeyFor = (accountId: string, envelopeId: string): string =>
  `${SCRATCH_PREFIX}${preparedKeyFor(accountId, envelopeId)}`;

/** `env_` + 24 base62 characters from the CSPRNG. */
export const newEnvelopeId = (): string => `env_${randomBase62(24)}`;
/** `rcp_` + 24 base62 characters from the CSPRNG. */
export const newRecipientId = (): string => `rcp_${randomBase62(24)}`;

const idempotencyConflict = () =>
  new ServiceError(
    'conflict',
    'Idempotency-Key: this key was already used for another request of this account',
    'Idempotency-Key',
  );

/** A replay of the same key and request answers the envelope as it stands; another request with it is a conflict. */
const replayOf = (existing: TEnvelopeAggregate, requestHash: string, now: Date): TEnvelope => {
  if (existing.envelope.requestHash !== requestHash) throw idempotencyConflict();
  return { ...toEnvelopeView(existing, now), replayed: true };
};

/**
 * `envelope.create`: the envelope (pending, its audit ID reserved, its head the original), its
 * recipients (waiting), the story's `sent`, the first group's turn (`notified`, and
 * `events.envelope.recipient-turn` for each of its signers and approvers that is not embedded) and
 * `events.envelope.sent`, in one transaction. A replay of an Idempotency-Key writes and publishes nothing.
 */
export const createEnvelope = async (
  deps: CreateEnvelopeDeps,
  request: z.output<(typeof EnvelopeCreate)['request']>,
): Promise<TEnvelope> => {
  // The signing page serves this object to whoever holds a link: only the account's own pending
  // originals may be named.
  const prefix = `${PENDING_PREFIX}${request.accountId}/`;
  if (!request.objectKey.startsWith(prefix) || request.objectKey.includes('..')) {
    throw new ServiceError('invalid_argument', `objectKey: must be an object under ${prefix}`, 'objectKey');
  }
  checkRecipients(request.recipients, request.pageCount);
  const { idempotency } = request;
  const now = deps.now();
  if (idempotency) {
    const existing = await findEnvelopeByIdempotencyKey(deps.pool, request.accountId, idempotency.key);
    if (existing) return replayOf(existing, idempotency.requestHash, now);
  }
  const envelopeId = newEnvelopeId();
  const recipients: TRecipientRow[] = request.recipients.map((r, position) => ({
    id: newRecipientId(),
    envelopeId,
    position,
    name: r.name,
    email: r.email,
    role: r.role,
    orderGroup: r.order,
    requireEmailCode: r.requireEmailCode,
    embedded: r.embedded,
    fields: r.fields.map(withFieldDefaults),
    status: 'waiting',
    notifiedAt: null,
    viewedAt: null,
    actedAt: null,
    declineReason: null,
    remindersSent: 0,
    lastRemindedAt: null,
  }));
  const auditId = newAuditId();
  const subject = (request.subject ?? `Please sign: ${request.fileName.replace(/[\r\n]+/g, ' ')}`).slice(
    0,
    MAX_SIGNING_SUBJECT_LENGTH,
  );
  // Revision 0: every recipient's field as a form field (named r<i>f<j> by the recipient's position and
  // the field's index), so that each signer's revision and the completion only fill in and sign. Made
  // before the transaction: a document pdf-signer refuses writes nothing (its invalid_argument goes back).
  // It is written under scratch/ and copied into place at the end of the transaction, so that an
  // envelope that is never created (a conflict, the database refusing, a crash) leaves no revision 0.
  const zero = deps.revisionZero;
  const preparingKey = preparingKeyFor(request.accountId, envelopeId);
  const prepared = zero
    ? await zero.prepare({
        accountId: request.accountId,
        auditId,
        envelopeId,
        sourceKey: request.objectKey,
        targetKey: preparingKey,
        fileName: request.fileName,
        subject,
        senderEmail: request.senderEmail,
        createdAt: now.toISOString(),
        originalHash: request.originalHash,
        recipients: recipients.map((r) => ({
          name: r.name,
          email: r.email,
          role: r.role,
          order: r.orderGroup,
          fields: r.fields,
        })),
      })
    : undefined;
  const headKey = prepared ? preparedKeyFor(request.accountId, envelopeId) : request.objectKey;
  const created: TEnvelopeAggregate = {
    envelope: {
      id: envelopeId,
      accountId: request.accountId,
      auditId,
      senderEmail: request.senderEmail,
      subject,
      message: request.message ?? null,
      fileName: request.fileName,
      originalKey: request.objectKey,
      originalHash: request.originalHash,
      pageCount: request.pageCount,
      status: 'pending',
      headKey,
      revision: 0,
      claimRecipientId: null,
      claimedUntil: null,
      completing: false,
      expiresAt: new Date(now.getTime() + request.expiresInDays * DAY_MS),
      // No settings: the contract's defaults (max 0 turns reminders off).
      reminders: request.reminders ?? ZReminderSettings.parse({}),
      createdAt: now,
      completedAt: null,
      declinedAt: null,
      declineReason: null,
      canceledAt: null,
      expiredAt: null,
      fileHash: null,
      signedKey: null,
      idempotencyKey: idempotency?.key ?? null,
      requestHash: idempotency?.requestHash ?? null,
      sendId: null,
    },
    recipients,
  };
  const { envelope } = created;
  let copied = false;
  try {
    const opened = await inTransaction(deps.pool, async (client) => {
      await insertEnvelope(client, created);
      await appendStory(client, envelope.id, [
        {
          recipientId: null,
          event: 'sent',
          at: now,
          ipAddress: null,
          userAgent: null,
          details: {
            envelopeId: envelope.id,
            senderEmail: envelope.senderEmail,
            recipients: recipients.length,
            expiresAt: envelope.expiresAt.toISOString(),
          },
        },
        // Revision 0, for the audit log: what pdf-signer made of the original, and its hash.
        ...(prepared
          ? [
              {
                recipientId: null,
                event: 'prepared',
                at: now,
                ipAddress: null,
                userAgent: null,
                details: {
                  ...prepared.events[0]?.details,
                  fileHash: prepared.fileHash,
                  pageCount: prepared.pageCount,
                  certificatePages: prepared.certificatePages,
                },
              },
            ]
          : []),
      ]);
      await insertOutbox(
        client,
        envelopeEvent(EnvelopeSent.subject, envelope, now, {
          recipients: recipients.map(eventRecipient),
          expiresAt: envelope.expiresAt.toISOString(),
        }),
      );
      const first = actingOrder(recipients);
      const turned = first === null ? recipients : await openTurn(client, created, first, now);
      // Last, once everything else is written: revision 0 in place as the transaction commits.
      if (zero && prepared) {
        copied = true;
        await zero.blob.copy(preparingKey, headKey, { contentType: 'application/pdf' });
      }
      return turned;
    });
    return { ...toEnvelopeView({ envelope, recipients: opened }, now), replayed: false };
  } catch (err) {
    if (zero && copied) await removeUncommitted(deps, zero, envelopeId, headKey);
    // Two requests with one key at once: the loser answers what the winner wrote.
    if (err instanceof EnvelopeIdempotencyKeyTaken && idempotency) {
      const existing = await findEnvelopeByIdempotencyKey(deps.pool, request.accountId, idempotency.key);
      if (existing) return replayOf(existing, idempotency.requestHash, now);
    }
    throw err;
  } finally {
    if (zero && prepared) await removeLeftover(zero, preparingKey);
  }
};

/** The scratch copy of revision 0, once the envelope holds its own copy or was never created. */
const removeLeftover = (zero: RevisionZeroPorts, key: string): Promise<void> =>
  zero.blob.remove(key).catch((err: unknown) => {
    // The bucket's lifecycle rule for scratch/ expires it within a day.
    zero.logger.warn('could not remove a scratch copy of revision 0', { key, err });
  });

/**
 * Revision 0 was copied into place and the transaction then failed (its commit, most likely): removed
 * unless the envelope exists after all (a commit whose answer was lost). When that cannot be told, it
 * stays: an unreferenced object is better than an envelope without its document.
 */
const removeUncommitted = async (
  deps: CreateEnvelopeDeps,
  zero: RevisionZeroPorts,
  envelopeId: string,
  key: string,
): Promise<void> => {
  try {
    if (await findEnvelope(deps.pool, { envelopeId }, { lock: false })) return;
    await zero.blob.remove(key);
  } catch (err) {
    zero.logger.warn('could not tell whether revision 0 of an envelope not created is used; left', {
      key,
      err,
    });
  }
};
