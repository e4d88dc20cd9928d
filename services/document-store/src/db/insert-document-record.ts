import type { TStoredAuditEvent } from '@esign/contracts';
import type pg from 'pg';

/** A document row as `document.record` writes it (`created_at` is the database's clock). */
export interface TNewDocument {
  readonly id: string;
  readonly accountId: string;
  readonly auditId: string;
  readonly fileName: string;
  readonly signerName: string;
  readonly signerEmail: string;
  readonly ipAddress: string;
  readonly userAgent: string;
  readonly signedAt: Date;
  readonly fileHash: string;
  readonly originalHash: string;
  readonly objectKey: string;
  readonly size: number;
  readonly pageCount: number;
  readonly idempotencyKey?: string;
  readonly requestHash?: string;
}

/** The account already used this Idempotency-Key for another document (nothing was written). */
export class IdempotencyKeyTaken extends Error {
  override readonly name = 'IdempotencyKeyTaken';
}

const IDEMPOTENCY_INDEX = 'documents_account_idempotency_key_idx';

/** An event to publish once the transaction that wrote it commits. */
export interface TOutboxEntry {
  readonly id: string;
  readonly subject: string;
  readonly payload: unknown;
  /** The writing request's trace context (W3C carrier), when it was traced. */
  readonly traceContext?: Record<string, string>;
}

/**
 * Document, audit log and outbox rows in one statement, so one round trip and one implicit
 * transaction: either all of it commits or none. The audit log and the outbox entries travel as JSON
 * arrays, expanded by `jsonb_to_recordset` (keys as `TStoredAuditEvent` and `TOutboxEntry` name them).
 * A known audit ID inserts no document row, and so no audit or outbox rows either, since both select
 * from it. Data-modifying CTEs run to completion whether or not the final SELECT reads them; the
 * foreign key from audit_events is checked at the end of the statement, when the document row exists.
 */
const INSERT_DOCUMENT_RECORD = `
with document as (
  insert into documents.documents (
    id, account_id, audit_id, file_name, signer_name, signer_email, ip_address, user_agent,
    signed_at, file_hash, original_hash, object_key, size, page_count, idempotency_key, request_hash
  )
  values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $17, $18)
  on conflict (audit_id) do nothing
  returning id
), audit as (
  insert into documents.audit_events (document_id, sequence, event, "timestamp", details, prev_hash, hash)
  select document.id, e.sequence, e.event, e."timestamp", e.details, e."prevHash", e.hash
  from document,
    jsonb_to_recordset($15::jsonb) as e(
      sequence integer, event text, "timestamp" timestamptz, details jsonb, "prevHash" text, hash text
    )
), event as (
  insert into documents.outbox (id, subject, payload, trace_context)
  select o.id, o.subject, o.payload, o."traceContext"
  from document,
    jsonb_to_recordset($16::jsonb) as o(id uuid, subject text, payload jsonb, "traceContext" jsonb)
)
select id from document`;

/**
 * Insert a document, its audit log and its outbox entries atomically, in one round trip through a
 * statement each pooled connection prepares once. `false` (and nothing written) when a document with
 * this audit ID exists; `IdempotencyKeyTaken` (nothing written) when the account used the key before.
 */
export const insertDocumentRecord = async (
  pool: Pick<pg.Pool, 'query'> | pg.PoolClient,
  input: {
    document: TNewDocument;
    auditLog: readonly TStoredAuditEvent[];
    events: readonly TOutboxEntry[];
  },
): Promise<boolean> => {
  const { document: d } = input;
  const result = await pool
    .query<{ id: string }>({
      name: 'documents.insert-document-record',
      text: INSERT_DOCUMENT_RECORD,
      values: [
        d.id,
        d.accountId,
        d.auditId,
        d.fileName,
        d.signerName,
        d.signerEmail,
        d.ipAddress,
        d.userAgent,
        d.signedAt.toISOString(),
        d.fileHash,
        d.originalHash,
        d.objectKey,
        d.size,
        d.pageCount,
        JSON.stringify(input.auditLog),
        JSON.stringify(input.events),
        d.idempotencyKey ?? null,
        d.requestHash ?? null,
      ],
    })
    .catch((err: unknown) => {
      const e = err as { code?: string; constraint?: string };
      if (e.code === '23505' && e.constraint === IDEMPOTENCY_INDEX) throw new IdempotencyKeyTaken();
      throw err;
    });
  return result.rowCount === 1;
};
