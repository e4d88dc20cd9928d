import { randomUUID } from 'node:crypto';
import type { TPosition } from '@esign/contracts';
import { traceCarrier } from '@esign/telemetry';
import type pg from 'pg';
import { prepared } from './prepared';
import type { TOutboxEntry } from './insert-document-record';
import type { TAuditDetails } from './schema';

/** A signing request as stored (`documents.signing_requests`). */
export interface TSigningRequestRow {
  readonly id: string;
  readonly accountId: string;
  readonly auditId: string;
  readonly senderEmail: string;
  readonly recipientEmail: string;
  readonly recipientName: string;
  readonly subject: string;
  readonly message: string | null;
  readonly fileName: string;
  readonly objectKey: string;
  readonly pageCount: number | null;
  readonly positions: TPosition[];
  readonly status: 'pending' | 'signed' | 'declined' | 'canceled' | 'expired';
  readonly sentAt: Date;
  readonly expiresAt: Date;
  readonly viewedAt: Date | null;
  readonly signedAt: Date | null;
  readonly declinedAt: Date | null;
  readonly declineReason: string | null;
  readonly canceledAt: Date | null;
  readonly expiredAt: Date | null;
  readonly fileHash: string | null;
  readonly idempotencyKey: string | null;
  readonly requestHash: string | null;
  readonly reminderCount: number;
  readonly nextReminderAt: Date | null;
  readonly claimedUntil: Date | null;
}

/** A new request, as `signing.create` writes it. */
export type TNewSigningRequest = Omit<
  TSigningRequestRow,
  | 'status'
  | 'viewedAt'
  | 'signedAt'
  | 'declinedAt'
  | 'declineReason'
  | 'canceledAt'
  | 'expiredAt'
  | 'fileHash'
  | 'reminderCount'
  | 'claimedUntil'
>;

/** One entry of a request's story (`documents.signing_events`). */
export interface TSigningEventEntry {
  readonly event: string;
  readonly timestamp: Date;
  readonly details: TAuditDetails;
}

/** Columns as camelCase, in the shape of `TSigningRequestRow`. */
export const REQUEST_COLUMNS = `
  id, account_id as "accountId", audit_id as "auditId", sender_email as "senderEmail",
  recipient_email as "recipientEmail", recipient_name as "recipientName", subject, message,
  file_name as "fileName", object_key as "objectKey", page_count as "pageCount", positions, status,
  sent_at as "sentAt", expires_at as "expiresAt", viewed_at as "viewedAt", signed_at as "signedAt",
  declined_at as "declinedAt", decline_reason as "declineReason", canceled_at as "canceledAt",
  expired_at as "expiredAt", file_hash as "fileHash", idempotency_key as "idempotencyKey",
  request_hash as "requestHash", reminder_count as "reminderCount", next_reminder_at as "nextReminderAt",
  claimed_until as "claimedUntil"`;

/** The account already used this Idempotency-Key for a signing request (nothing was written). */
export class SigningIdempotencyKeyTaken extends Error {
  override readonly name = 'SigningIdempotencyKeyTaken';
}

const IDEMPOTENCY_INDEX = 'signing_requests_account_idempotency_key_idx';

/** A queryable connection: the pool, or a client inside a transaction. */
export type Queryable = Pick<pg.PoolClient, 'query'>;

/** Run `work` in one transaction on one pooled client; roll back on any failure. */
export const inTransaction = async <T>(
  pool: pg.Pool,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> => {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('begin');
    const result = await work(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch((rollbackError: unknown) => {
      // A connection that cannot roll back is not given back to the pool.
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw err;
  } finally {
    client.release(broken);
  }
};

/** The request, locked for the rest of the transaction. */
export const lockRequest = async (
  client: Queryable,
  where: { sendId: string; accountId?: string },
): Promise<TSigningRequestRow | undefined> => {
  const { rows } = await client.query<TSigningRequestRow>(
    `select ${REQUEST_COLUMNS} from documents.signing_requests
     where id = $1 and ($2::uuid is null or account_id = $2::uuid) for update`,
    [where.sendId, where.accountId ?? null],
  );
  return rows[0];
};

/** The request a live (not revoked) link belongs to, locked when `lock` is set. */
export const findRequestByToken = async (
  client: Queryable,
  tokenHash: string,
  options: { lock: boolean },
): Promise<TSigningRequestRow | undefined> => {
  const { rows } = await client.query<TSigningRequestRow>(
    `select ${REQUEST_COLUMNS} from documents.signing_requests
     where id = (select send_id from documents.signing_links where token_hash = $1 and revoked_at is null)
     ${options.lock ? 'for update' : ''}`,
    [tokenHash],
  );
  return rows[0];
};

export const findRequestByIdempotencyKey = async (
  client: Queryable,
  accountId: string,
  key: string,
): Promise<TSigningRequestRow | undefined> => {
  const { rows } = await client.query<TSigningRequestRow>(
    `select ${REQUEST_COLUMNS} from documents.signing_requests where account_id = $1 and idempotency_key = $2`,
    [accountId, key],
  );
  return rows[0];
};

/** An account's request by send ID or audit ID. */
export const findRequestById = async (
  client: Queryable,
  accountId: string,
  id: string,
): Promise<TSigningRequestRow | undefined> => {
  const column = id.startsWith('send_') ? 'id' : 'audit_id';
  const { rows } = await client.query<TSigningRequestRow>(
    `select ${REQUEST_COLUMNS} from documents.signing_requests where account_id = $1 and ${column} = $2`,
    [accountId, id],
  );
  return rows[0];
};

/** A page of an account's requests, newest first (index `signing_requests_account_sent_at_idx`), and their count. */
export const listRequests = async (
  client: Queryable,
  accountId: string,
  page: { limit: number; offset: number },
): Promise<{ rows: TSigningRequestRow[]; total: number }> => {
  const [list, count] = await Promise.all([
    client.query<TSigningRequestRow>(
      `select ${REQUEST_COLUMNS} from documents.signing_requests where account_id = $1
       order by sent_at desc, id desc limit $2 offset $3`,
      [accountId, page.limit, page.offset],
    ),
    client.query<{ total: string }>(
      'select count(*) as total from documents.signing_requests where account_id = $1',
      [accountId],
    ),
  ]);
  return { rows: list.rows, total: Number(count.rows[0]?.total ?? 0) };
};

/** Insert a new request; `SigningIdempotencyKeyTaken` when the account's key is taken. */
export const insertRequest = async (client: Queryable, r: TNewSigningRequest): Promise<void> => {
  await client
    .query(
      `insert into documents.signing_requests (
         id, account_id, audit_id, sender_email, recipient_email, recipient_name, subject, message,
         file_name, object_key, page_count, positions, status, sent_at, expires_at, idempotency_key,
         request_hash, next_reminder_at
       ) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, 'pending', $13, $14, $15, $16, $17)`,
      [
        r.id,
        r.accountId,
        r.auditId,
        r.senderEmail,
        r.recipientEmail,
        r.recipientName,
        r.subject,
        r.message,
        r.fileName,
        r.objectKey,
        r.pageCount,
        JSON.stringify(r.positions),
        r.sentAt,
        r.expiresAt,
        r.idempotencyKey,
        r.requestHash,
        r.nextReminderAt,
      ],
    )
    .catch((err: unknown) => {
      const e = err as { code?: string; constraint?: string };
      if (e.code === '23505' && e.constraint === IDEMPOTENCY_INDEX) throw new SigningIdempotencyKeyTaken();
      throw err;
    });
};

/** Set columns of a request (names are fixed by the callers, values are parameters). */
export const updateRequest = async (
  client: Queryable,
  sendId: string,
  set: Record<string, string | number | Date | null>,
): Promise<void> => {
  const columns = Object.keys(set);
  await client.query(
    `update documents.signing_requests set ${columns.map((c, i) => `${c} = $${i + 2}`).join(', ')} where id = $1`,
    [sendId, ...Object.values(set)],
  );
};

/** Append an entry to the request's story. */
export const appendSigningEvent = async (
  client: Queryable,
  sendId: string,
  entry: TSigningEventEntry & { byRecipient?: boolean },
): Promise<void> => {
  await client.query(
    `insert into documents.signing_events (send_id, event, "timestamp", details, by_recipient)
     values ($1, $2, $3, $4, $5)`,
    [sendId, entry.event, entry.timestamp, JSON.stringify(entry.details), entry.byRecipient ?? false],
  );
};

/** The request's story, oldest first. */
export const readSigningEvents = async (client: Queryable, sendId: string): Promise<TSigningEventEntry[]> => {
  const { rows } = await client.query<TSigningEventEntry>(
    `select event, "timestamp", details from documents.signing_events where send_id = $1 order by id`,
    [sendId],
  );
  return rows;
};

/**
 * An outbox entry for a signing event: its `eventId` is the row id (and so the `Nats-Msg-Id`). The
 * payload is built by the caller from checked fields; the relay checks it against the contract again.
 */
export const signingOutboxEntry = (
  subject: string,
  build: (eventId: string) => Record<string, unknown>,
): TOutboxEntry => {
  const id = randomUUID();
  return { id, subject, payload: build(id), traceContext: traceCarrier() };
};

export const insertOutbox = async (client: Queryable, entry: TOutboxEntry): Promise<void> => {
  await client.query(
    prepared(
      'insert-outbox',
      'insert into documents.outbox (id, subject, payload, trace_context) values ($1, $2, $3, $4)',
      [
        entry.id,
        entry.subject,
        JSON.stringify(entry.payload),
        entry.traceContext ? JSON.stringify(entry.traceContext) : null,
      ],
    ),
  );
};

/** Queue several events in one statement (an act's event and those of the turn it opens). */
export const insertOutboxEntries = async (
  client: Queryable,
  entries: readonly TOutboxEntry[],
): Promise<void> => {
  if (entries.length === 0) return;
  if (entries.length === 1 && entries[0]) return insertOutbox(client, entries[0]);
  await client.query(
    prepared(
      'insert-outbox-entries',
      `insert into documents.outbox (id, subject, payload, trace_context)
     select id, subject, payload, trace_context
     from jsonb_to_recordset($1::jsonb) as x(id uuid, subject text, payload jsonb, trace_context jsonb)`,
      [
        JSON.stringify(
          entries.map((e) => ({
            id: e.id,
            subject: e.subject,
            payload: e.payload,
            trace_context: e.traceContext ?? null,
          })),
        ),
      ],
    ),
  );
};

/** What every signing event carries, from the request row. */
export const eventBase = (r: TSigningRequestRow, eventId: string) => ({
  eventId,
  sendId: r.id,
  auditId: r.auditId,
  accountId: r.accountId,
  senderEmail: r.senderEmail,
  recipientEmail: r.recipientEmail,
  recipientName: r.recipientName,
  fileName: r.fileName,
});

/** Store a link's hash; revoke the request's earlier links first when `replace`. */
export const attachLink = async (
  client: Queryable,
  link: { sendId: string; eventId: string; tokenHash: string; replace: boolean; now: Date },
): Promise<'attached' | 'taken'> => {
  if (link.replace) {
    await client.query(
      'update documents.signing_links set revoked_at = $2 where send_id = $1 and revoked_at is null',
      [link.sendId, link.now],
    );
  }
  const inserted = await client.query(
    `insert into documents.signing_links (token_hash, send_id, event_id, created_at) values ($1, $2, $3, $4)
     on conflict (token_hash) do nothing`,
    [link.tokenHash, link.sendId, link.eventId, link.now],
  );
  return inserted.rowCount === 1 ? 'attached' : 'taken';
};
