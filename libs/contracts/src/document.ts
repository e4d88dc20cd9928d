import { z } from 'zod';
import { defineEvent, defineRequest } from './define';
import { ZAuditEvent, ZAuditId, ZFileHash, ZIsoTimestamp } from './common';

/**
 * An `Idempotency-Key` header value: 1-255 visible ASCII characters (a UUID is typical). Scoped to the
 * account; remembered as long as the document it produced.
 */
export const ZIdempotencyKey = z
  .string()
  .min(1)
  .max(255)
  .regex(/^[\x21-\x7e]+$/, 'must be 1-255 visible ASCII characters');

const ZSha256Hex = z.string().regex(/^[0-9a-f]{64}$/);

/** A signed document as the list endpoint shows it. */
export const ZDocumentRecord = z.object({
  id: z.uuid(),
  fileName: z.string(),
  signerName: z.string(),
  signerEmail: z.string(),
  signedAt: ZIsoTimestamp,
  auditId: ZAuditId,
  fileHash: ZFileHash,
  ipAddress: z.string(),
});
export type TDocumentRecord = z.infer<typeof ZDocumentRecord>;

/** An audit log entry as stored: chained by SHA-256 to the previous entry of the same document. */
export const ZStoredAuditEvent = ZAuditEvent.extend({
  sequence: z.number().int().nonnegative(),
  prevHash: z.string().regex(/^[0-9a-f]{64}$/),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
});
export type TStoredAuditEvent = z.infer<typeof ZStoredAuditEvent>;

export const ZDocumentDetail = ZDocumentRecord.extend({
  userAgent: z.string(),
  originalHash: ZFileHash,
  size: z.number().int(),
  pageCount: z.number().int(),
  createdAt: ZIsoTimestamp,
  auditLog: z.array(ZStoredAuditEvent),
  /** Where the signed PDF is in object storage (internal: the public schema leaves it out). */
  objectKey: z.string(),
});
export type TDocumentDetail = z.infer<typeof ZDocumentDetail>;

export const ZRecordDocumentRequest = z.object({
  accountId: z.uuid(),
  auditId: ZAuditId,
  fileName: z.string(),
  signerName: z.string(),
  signerEmail: z.string(),
  ipAddress: z.string(),
  userAgent: z.string(),
  signedAt: ZIsoTimestamp,
  fileHash: ZFileHash,
  originalHash: ZFileHash,
  objectKey: z.string(),
  size: z.number().int().positive(),
  pageCount: z.number().int().positive(),
  events: z.array(ZAuditEvent),
  /** The client's Idempotency-Key and the fingerprint of the request it came with (both or neither). */
  idempotency: z.object({ key: ZIdempotencyKey, requestHash: ZSha256Hex }).optional(),
  /**
   * The document signs a signing request (send for signing): in the same transaction the request
   * becomes `signed` (its `signedAt`, `fileHash`), its links die, its audit trail (sent, emailed,
   * viewed…) is copied at the head of the document's audit log, and `events.signing.completed` is
   * published. `auditId` and `accountId` must be the request's; `not_found` when the link is unknown
   * or revoked, `conflict` when the request is no longer pending or has expired (a double submit
   * records once). `tokenHash` is the SHA-256 hex of the link's token (`ZSigningTokenHash`).
   */
  signingRequest: z
    .object({
      sendId: z.string().regex(/^send_[A-Za-z0-9]{16,40}$/, 'not a send ID'),
      tokenHash: ZSha256Hex,
    })
    .optional(),
  /**
   * No quota reservation was made for this document (`key.reserve-document`): the caller knew its
   * account's plan has no monthly limit. The key service counts it from `events.document.signed`,
   * which then carries the same flag. Absent: the document was counted when it was reserved.
   */
  countFromRecord: z.literal(true).optional(),
});
export type TRecordDocumentRequest = z.infer<typeof ZRecordDocumentRequest>;

/** Persist a signed document, its audit log and its outbox event in one transaction. */
export const DocumentRecord = defineRequest(
  'document.record',
  ZRecordDocumentRequest,
  z.object({ id: z.uuid() }),
);

export const ZDocumentSort = z.enum(['signed_at', 'file_name', 'created_at']);

export const ZListDocumentsRequest = z.object({
  accountId: z.uuid(),
  page: z.number().int().min(1),
  limit: z.number().int().min(1).max(100),
  search: z.string().max(200).optional(),
  /** Inclusive lower bound, as an instant (start of the given day in UTC when a date was given). */
  signedFrom: ZIsoTimestamp.optional(),
  /** Exclusive upper bound, as an instant (start of the day after dateTo, so dateTo is inclusive). */
  signedBefore: ZIsoTimestamp.optional(),
  sortBy: ZDocumentSort,
  sortDir: z.enum(['asc', 'desc']),
  /**
   * Keyset paging: an opaque `nextCursor` from an earlier reply of the same list (same `sortBy` and
   * `sortDir`; the filters are applied again, so pass the same ones). The reply holds the `limit`
   * documents that follow the last document of that earlier page in the sort order, however deep, at
   * the cost of a first page. With a cursor, `page` must be 1 (the reply's `page` is then 1 too, and
   * means nothing). A cursor that does not decode, or was made for another sort, is `invalid_argument`
   * with field `cursor`; with `page` other than 1, `invalid_argument` with field `page`.
   */
  cursor: z.string().min(1).max(2000).optional(),
});
export type TListDocumentsRequest = z.infer<typeof ZListDocumentsRequest>;

export const DocumentList = defineRequest(
  'document.list',
  ZListDocumentsRequest,
  z.object({
    documents: z.array(ZDocumentRecord),
    /** Documents matching the filters; an estimate when `totalExact` is false. */
    total: z.number().int(),
    /**
     * False when `total` (and so `pages`) is the database planner's estimate: only when a `search` or a
     * date range is given and more than 200 documents match (they are counted exactly up to 200). An
     * unfiltered total is always exact.
     */
    totalExact: z.boolean(),
    page: z.number().int(),
    /** `ceil(total / limit)`: 0 when nothing matches; an estimate when `totalExact` is false. */
    pages: z.number().int(),
    /**
     * Pass as `cursor` (with the same filters and sort) for the page after this one; null when this
     * page is the last. Offered by every reply, page-based or not.
     */
    nextCursor: z.string().nullable(),
  }),
);

/** One document with its audit log; `not_found` when it is not this account's. */
export const DocumentGet = defineRequest(
  'document.get',
  z.object({ accountId: z.uuid(), auditId: z.string() }),
  ZDocumentDetail,
);

/**
 * The document an account's Idempotency-Key produced, with the fingerprint of the request that made
 * it, so that a retry can be answered with the same document; `not_found` when the key is unused.
 */
export const DocumentFindByIdempotencyKey = defineRequest(
  'document.find-by-idempotency-key',
  z.object({ accountId: z.uuid(), key: ZIdempotencyKey }),
  z.object({
    auditId: ZAuditId,
    requestHash: ZSha256Hex,
    fileName: z.string(),
    signedAt: ZIsoTimestamp,
    fileHash: ZFileHash,
    objectKey: z.string(),
    size: z.number().int(),
  }),
);

/** Published from document-store's outbox once a signed document is durable. */
export const DocumentSigned = defineEvent(
  'events.document.signed',
  z.object({
    documentId: z.uuid(),
    accountId: z.uuid(),
    auditId: ZAuditId,
    fileHash: ZFileHash,
    signedAt: ZIsoTimestamp,
    /**
     * The public facts a webhook receiver gets (added later: optional, so that events published
     * before them still parse). `eventId` is the outbox row id, also the `Nats-Msg-Id`.
     */
    eventId: z.uuid().optional(),
    fileName: z.string().optional(),
    signerName: z.string().optional(),
    signerEmail: z.string().optional(),
    objectKey: z.string().optional(),
    /** The signing request it completes, when signed through a signing link. */
    sendId: z.string().optional(),
    /**
     * Counted against the account's month by the key service from this event (no reservation was
     * made: `ZRecordDocumentRequest.countFromRecord`). Absent: counted already, not to be counted again.
     */
    countFromRecord: z.literal(true).optional(),
  }),
  { durable: true },
);
