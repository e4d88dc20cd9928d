import {
  MAX_SIGNING_SUBJECT_LENGTH,
  ServiceError,
  SigningRequested,
  type SigningCreate,
  type TSigningRequestCreated,
} from '@esign/contracts';
import { newAuditId, randomBase62 } from '@esign/ids';
import type { z } from 'zod';
import {
  appendSigningEvent,
  eventBase,
  findRequestByIdempotencyKey,
  inTransaction,
  insertOutbox,
  insertRequest,
  SigningIdempotencyKeyTaken,
  signingOutboxEntry,
  type TSigningRequestRow,
} from '../../db/signing-repository';
import { reminderDueAt, type SigningDeps } from './signing-deps';

/** Where the gateway keeps the originals of signing requests (no lifecycle rule expires them). */
export const PENDING_PREFIX = 'pending/';

const DAY_MS = 24 * 60 * 60 * 1000;

/** `send_` + 24 base62 characters from the CSPRNG (~143 bits). */
export const newSendId = (): string => `send_${randomBase62(24)}`;

const toCreated = (r: TSigningRequestRow): TSigningRequestCreated => ({
  sendId: r.id,
  auditId: r.auditId,
  recipientEmail: r.recipientEmail,
  sentAt: r.sentAt.toISOString(),
  status: r.status,
  expiresAt: r.expiresAt.toISOString(),
});

const idempotencyConflict = () =>
  new ServiceError(
    'conflict',
    'Idempotency-Key: this key was already used for another request of this account',
    'Idempotency-Key',
  );

/** A replay of the same key and request answers the first request; another request with it is a conflict. */
const replayOf = (existing: TSigningRequestRow, requestHash: string): TSigningRequestCreated => {
  if (existing.requestHash !== requestHash) throw idempotencyConflict();
  return { ...toCreated(existing), replayed: true };
};

/**
 * `signing.create`: the request row (pending, its audit ID reserved), the first entry of its story
 * (`signing.sent`) and `events.signing.requested` in the outbox, in one transaction.
 */
export const createSigningRequest = async (
  deps: SigningDeps,
  request: z.output<(typeof SigningCreate)['request']>,
): Promise<TSigningRequestCreated> => {
  // The public signing page serves this object to whoever holds a link: only the account's own
  // pending originals may be named.
  const prefix = `${PENDING_PREFIX}${request.accountId}/`;
  if (!request.objectKey.startsWith(prefix) || request.objectKey.includes('..')) {
    throw new ServiceError('invalid_argument', `objectKey: must be an object under ${prefix}`, 'objectKey');
  }
  const { idempotency } = request;
  if (idempotency) {
    const existing = await findRequestByIdempotencyKey(deps.pool, request.accountId, idempotency.key);
    if (existing) return replayOf(existing, idempotency.requestHash);
  }
  const sentAt = deps.now();
  const expiresAt = new Date(sentAt.getTime() + request.expiresInDays * DAY_MS);
  const row: TSigningRequestRow = {
    id: newSendId(),
    accountId: request.accountId,
    auditId: newAuditId(),
    senderEmail: request.senderEmail,
    recipientEmail: request.recipientEmail,
    recipientName: request.recipientName,
    subject: (request.subject ?? `Please sign: ${request.fileName.replace(/[\r\n]+/g, ' ')}`).slice(
      0,
      MAX_SIGNING_SUBJECT_LENGTH,
    ),
    message: request.message ?? null,
    fileName: request.fileName,
    objectKey: request.objectKey,
    pageCount: request.pageCount ?? null,
    positions: request.positions,
    status: 'pending',
    sentAt,
    expiresAt,
    viewedAt: null,
    signedAt: null,
    declinedAt: null,
    declineReason: null,
    canceledAt: null,
    expiredAt: null,
    fileHash: null,
    idempotencyKey: idempotency?.key ?? null,
    requestHash: idempotency?.requestHash ?? null,
    reminderCount: 0,
    claimedUntil: null,
    nextReminderAt: reminderDueAt({ sentAt, expiresAt }, 1, deps.reminders),
  };
  try {
    await inTransaction(deps.pool, async (client) => {
      await insertRequest(client, row);
      await appendSigningEvent(client, row.id, {
        event: 'signing.sent',
        timestamp: sentAt,
        details: {
          sendId: row.id,
          senderEmail: row.senderEmail,
          recipientEmail: row.recipientEmail,
          recipientName: row.recipientName,
          expiresAt: expiresAt.toISOString(),
        },
      });
      await insertOutbox(
        client,
        signingOutboxEntry(SigningRequested.subject, (eventId) => ({
          ...eventBase(row, eventId),
          subject: row.subject,
          message: row.message,
          expiresAt: expiresAt.toISOString(),
          requestedAt: sentAt.toISOString(),
          resend: false,
        })),
      );
    });
  } catch (err) {
    // Two requests with one key at once: the loser answers what the winner wrote.
    if (err instanceof SigningIdempotencyKeyTaken && idempotency) {
      const existing = await findRequestByIdempotencyKey(deps.pool, request.accountId, idempotency.key);
      if (existing) return replayOf(existing, idempotency.requestHash);
    }
    throw err;
  }
  return { ...toCreated(row), replayed: false };
};
