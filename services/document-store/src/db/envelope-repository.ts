import { randomUUID } from 'node:crypto';
import type { TEnvelopeField, TRecipientRole, TRecipientStatus, TEnvelopeStatus } from '@esign/contracts';
import { traceCarrier } from '@esign/telemetry';
import type { TOutboxEntry } from './insert-document-record';
import type { TAuditDetails } from './schema';
import { prepared } from './prepared';
import type { Queryable } from './signing-repository';

/** An envelope as stored (`documents.envelopes`). */
export interface TEnvelopeRow {
  readonly id: string;
  readonly accountId: string;
  readonly auditId: string;
  readonly senderEmail: string;
  readonly subject: string;
  readonly message: string | null;
  readonly fileName: string;
  readonly originalKey: string;
  /** Null for a send's envelope. */
  readonly originalHash: string | null;
  readonly pageCount: number;
  readonly status: TEnvelopeStatus;
  readonly headKey: string;
  readonly revision: number;
  readonly claimRecipientId: string | null;
  readonly claimedUntil: Date | null;
  readonly completing: boolean;
  readonly expiresAt: Date;
  readonly reminders: { firstAfterDays: number; everyDays: number; max: number } | null;
  readonly createdAt: Date;
  readonly completedAt: Date | null;
  readonly declinedAt: Date | null;
  readonly declineReason: string | null;
  readonly canceledAt: Date | null;
  readonly expiredAt: Date | null;
  readonly fileHash: string | null;
  readonly signedKey: string | null;
  readonly idempotencyKey: string | null;
  readonly requestHash: string | null;
  /** The send it is the envelope of (`POST /api/v1/send`), kept in step by a trigger; null for others. */
  readonly sendId: string | null;
}

/** A recipient as stored (`documents.envelope_recipients`). */
export interface TRecipientRow {
  readonly id: string;
  readonly envelopeId: string;
  readonly position: number;
  readonly name: string;
  readonly email: string;
  readonly role: TRecipientRole;
  readonly orderGroup: number;
  readonly requireEmailCode: boolean;
  readonly embedded: boolean;
  readonly fields: TEnvelopeField[];
  readonly status: TRecipientStatus;
  readonly notifiedAt: Date | null;
  readonly viewedAt: Date | null;
  readonly actedAt: Date | null;
  readonly declineReason: string | null;
  readonly remindersSent: number;
  readonly lastRemindedAt: Date | null;
  /** Who held this place before (the story's `replaced` entries, oldest first); absent on rows built in memory. */
  readonly replaces?: readonly TReplacedPerson[];
}

/** A person replaced in a recipient's place, as the story's `replaced` entry names them. */
export interface TReplacedPerson {
  readonly name: string;
  readonly email: string;
  readonly replacedAt: Date;
}

/** An envelope with its recipients in the sender's order. */
export interface TEnvelopeAggregate {
  readonly envelope: TEnvelopeRow;
  readonly recipients: TRecipientRow[];
}

/** One entry of an envelope's story (`documents.envelope_events`). */
export interface TEnvelopeStoryEntry {
  readonly recipientId: string | null;
  readonly event: string;
  readonly at: Date;
  readonly ipAddress: string | null;
  readonly userAgent: string | null;
  readonly details: TAuditDetails;
}

export const ENVELOPE_COLUMNS = `
  id, account_id as "accountId", audit_id as "auditId", sender_email as "senderEmail", subject, message,
  file_name as "fileName", original_key as "originalKey", original_hash as "originalHash",
  page_count as "pageCount", status, head_key as "headKey", revision,
  claim_recipient_id as "claimRecipientId", claimed_until as "claimedUntil", completing,
  expires_at as "expiresAt", reminders, created_at as "createdAt", completed_at as "completedAt",
  declined_at as "declinedAt", decline_reason as "declineReason", canceled_at as "canceledAt",
  expired_at as "expiredAt", file_hash as "fileHash", signed_key as "signedKey",
  idempotency_key as "idempotencyKey", request_hash as "requestHash", send_id as "sendId"`;

/** A recipient's row (`r`) as `TRecipientRow`, without who they replaced. */
const RECIPIENT_ROW_COLUMNS = `
  r.id, r.envelope_id as "envelopeId", r.position, r.name, r.email, r.role, r.order_group as "orderGroup",
  r.require_email_code as "requireEmailCode", r.embedded, r.fields, r.status, r.notified_at as "notifiedAt",
  r.viewed_at as "viewedAt", r.acted_at as "actedAt", r.decline_reason as "declineReason",
  r.reminders_sent as "remindersSent", r.last_reminded_at as "lastRemindedAt"`;

/** With who they replaced: a subquery of the story per recipient, so only where a view shows them. */
const RECIPIENT_COLUMNS = `${RECIPIENT_ROW_COLUMNS},
  coalesce((
    select jsonb_agg(jsonb_build_object('name', ev.details->>'replacedName',
      'email', ev.details->>'replacedEmail', 'replacedAt', ev.at) order by ev.id)
    from documents.envelope_events ev
    where ev.envelope_id = r.envelope_id and ev.recipient_id = r.id and ev.event = 'replaced'
  ), '[]'::jsonb) as "replaces"`;

/** The story's `replaced` entries as read in SQL (`replacedAt` comes as JSON text). */
const withReplacedPeople = (row: TRecipientRow): TRecipientRow => ({
  ...row,
  replaces: (row.replaces ?? []).map((p) => ({ ...p, replacedAt: new Date(p.replacedAt) })),
});

/** The account already used this Idempotency-Key for an envelope (nothing was written). */
export class EnvelopeIdempotencyKeyTaken extends Error {
  override readonly name = 'EnvelopeIdempotencyKeyTaken';
}

const IDEMPOTENCY_INDEX = 'envelopes_account_idempotency_key_idx';

/** The recipients of envelopes, in the sender's order. */
export const readRecipients = async (client: Queryable, envelopeIds: string[]): Promise<TRecipientRow[]> => {
  if (envelopeIds.length === 0) return [];
  const { rows } = await client.query<TRecipientRow>(
    `select ${RECIPIENT_COLUMNS} from documents.envelope_recipients r
     where envelope_id = any($1::text[]) order by envelope_id, position`,
    [envelopeIds],
  );
  return rows.map(withReplacedPeople);
};

const withRecipients = async (
  client: Queryable,
  envelope: TEnvelopeRow | undefined,
): Promise<TEnvelopeAggregate | undefined> =>
  envelope ? { envelope, recipients: await readRecipients(client, [envelope.id]) } : undefined;

/** An envelope by id (of the account when given), locked for the transaction when `lock`. */
export const findEnvelope = async (
  client: Queryable,
  where: { envelopeId: string; accountId?: string },
  options: { lock: boolean },
): Promise<TEnvelopeAggregate | undefined> => {
  const { rows } = await client.query<TEnvelopeRow>(
    `select ${ENVELOPE_COLUMNS} from documents.envelopes
     where id = $1 and ($2::uuid is null or account_id = $2::uuid) ${options.lock ? 'for update' : ''}`,
    [where.envelopeId, where.accountId ?? null],
  );
  return withRecipients(client, rows[0]);
};

/**
 * The envelope a recipient belongs to, locked for the transaction, with its recipients (without whom
 * they replaced): one statement fewer than finding its id first.
 */
export const lockRecipientEnvelope = async (
  client: Queryable,
  recipientId: string,
): Promise<TEnvelopeAggregate | undefined> => {
  const { rows } = await client.query<TEnvelopeRow>(
    prepared(
      'envelope-by-recipient-locked',
      `select ${ENVELOPE_COLUMNS} from documents.envelopes
       where id = (select envelope_id from documents.envelope_recipients where id = $1) for update`,
      [recipientId],
    ),
  );
  const envelope = rows[0];
  if (!envelope) return undefined;
  const recipients = await client.query<TRecipientRow>(
    prepared(
      'envelope-recipients',
      `select ${RECIPIENT_ROW_COLUMNS} from documents.envelope_recipients r
       where r.envelope_id = $1 order by r.position`,
      [envelope.id],
    ),
  );
  return { envelope, recipients: recipients.rows };
};

/** A link as found by its token's hash (revoked ones too: the caller decides). */
export interface TEnvelopeLinkRow {
  readonly tokenHash: string;
  readonly recipientId: string;
  readonly envelopeId: string;
  readonly mode: 'replace' | 'add' | 'embedded';
  readonly createdAt: Date;
  readonly revokedAt: Date | null;
  readonly expiresAt: Date | null;
  readonly usedAt: Date | null;
  readonly codeHash: string | null;
  readonly codeExpiresAt: Date | null;
  readonly codeAttempts: number;
  readonly codeVerifiedAt: Date | null;
  readonly codeRequests: number;
  readonly codeWindowStart: Date | null;
}

/**
 * Whether a link (`l`) of an envelope (`e`) is live at the instant `now` (a parameter): not revoked (a
 * link revoked because its envelope ended is still found, so that the page can answer that the
 * envelope ended), and for an embedded link either used already or still inside its opening window.
 */
const LIVE_LINK = (now: string) => `(l.revoked_at is null or e.status <> 'pending')
  and (l.expires_at is null or l.used_at is not null or l.expires_at > ${now})`;

/** A link's row (`l`, its recipient `r`) as `TEnvelopeLinkRow`, each name after `prefix`. */
const linkColumns = (prefix: string) =>
  [
    ['l.token_hash', 'tokenHash'],
    ['l.recipient_id', 'recipientId'],
    ['r.envelope_id', 'envelopeId'],
    ['l.mode', 'mode'],
    ['l.created_at', 'createdAt'],
    ['l.revoked_at', 'revokedAt'],
    ['l.expires_at', 'expiresAt'],
    ['l.used_at', 'usedAt'],
    ['l.code_hash', 'codeHash'],
    ['l.code_expires_at', 'codeExpiresAt'],
    ['l.code_attempts', 'codeAttempts'],
    ['l.code_verified_at', 'codeVerifiedAt'],
    ['l.code_requests', 'codeRequests'],
    ['l.code_window_start', 'codeWindowStart'],
  ]
    .map(([column, name]) => `${column} as "${prefix}${name}"`)
    .join(', ');

const LINK_PREFIX = 'link.';

/** An envelope's recipients (`$1`), each with its columns of the live link `$2` (null on the others). */
const RECIPIENTS_WITH_LINK = `
  select ${RECIPIENT_ROW_COLUMNS}, ${linkColumns(LINK_PREFIX)}
  from documents.envelope_recipients r
    join documents.envelopes e on e.id = r.envelope_id
    left join documents.envelope_links l on l.recipient_id = r.id and l.token_hash = $2 and ${LIVE_LINK('$3')}
  where r.envelope_id = $1 order by r.position`;

/** What a live link opens: its envelope, the envelope's recipients in order (without whom they replaced), the link. */
export interface TLinkTargetRows {
  readonly envelope: TEnvelopeRow;
  readonly recipients: TRecipientRow[];
  readonly link: TEnvelopeLinkRow;
}

/**
 * The envelope a live link opens, in two statements: the envelope by the link's token (locked for the
 * transaction when `lock`), then its recipients with the link, read after that lock (a change that
 * held the lock meanwhile may have revoked or deleted the link: a replaced person's act must not land
 * on the new person's place). Undefined for an unknown, revoked or lapsed link.
 */
export const findLinkTarget = async (
  client: Queryable,
  tokenHash: string,
  now: Date,
  options: { lock: boolean },
): Promise<TLinkTargetRows | undefined> => {
  const { rows } = await client.query<TEnvelopeRow>(
    prepared(
      options.lock ? 'envelope-by-link-locked' : 'envelope-by-link',
      `select ${ENVELOPE_COLUMNS} from documents.envelopes
       where id = (select r.envelope_id from documents.envelope_links l
                     join documents.envelope_recipients r on r.id = l.recipient_id
                   where l.token_hash = $1)
       ${options.lock ? 'for update' : ''}`,
      [tokenHash],
    ),
  );
  const envelope = rows[0];
  if (!envelope) return undefined;
  const { rows: joined } = await client.query<Record<string, unknown>>(
    prepared('envelope-recipients-with-link', RECIPIENTS_WITH_LINK, [envelope.id, tokenHash, now]),
  );
  let link: TEnvelopeLinkRow | undefined;
  const recipients = joined.map((row) => {
    const recipient: Record<string, unknown> = {};
    const linkRow: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(row)) {
      if (key.startsWith(LINK_PREFIX)) linkRow[key.slice(LINK_PREFIX.length)] = value;
      else recipient[key] = value;
    }
    if (linkRow.tokenHash !== null) link = linkRow as unknown as TEnvelopeLinkRow;
    return recipient as unknown as TRecipientRow;
  });
  return link ? { envelope, recipients, link } : undefined;
};

export const findEnvelopeByIdempotencyKey = async (
  client: Queryable,
  accountId: string,
  key: string,
): Promise<TEnvelopeAggregate | undefined> => {
  const { rows } = await client.query<TEnvelopeRow>(
    `select ${ENVELOPE_COLUMNS} from documents.envelopes where account_id = $1 and idempotency_key = $2`,
    [accountId, key],
  );
  return withRecipients(client, rows[0]);
};

/** Insert a new envelope and its recipients; `EnvelopeIdempotencyKeyTaken` when the account's key is taken. */
export const insertEnvelope = async (client: Queryable, aggregate: TEnvelopeAggregate): Promise<void> => {
  const e = aggregate.envelope;
  await client
    .query(
      `insert into documents.envelopes (
         id, account_id, audit_id, sender_email, subject, message, file_name, original_key, original_hash,
         page_count, status, head_key, revision, expires_at, reminders, created_at, idempotency_key,
         request_hash
       ) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, 'pending', $16, 0, $11, $12, $13, $14, $15)`,
      [
        e.id,
        e.accountId,
        e.auditId,
        e.senderEmail,
        e.subject,
        e.message,
        e.fileName,
        e.originalKey,
        e.originalHash,
        e.pageCount,
        e.expiresAt,
        e.reminders ? JSON.stringify(e.reminders) : null,
        e.createdAt,
        e.idempotencyKey,
        e.requestHash,
        // Revision 0 (pdf.prepare-envelope), or the original when none was made.
        e.headKey,
      ],
    )
    .catch((err: unknown) => {
      const x = err as { code?: string; constraint?: string };
      if (x.code === '23505' && x.constraint === IDEMPOTENCY_INDEX) throw new EnvelopeIdempotencyKeyTaken();
      throw err;
    });
  const r = aggregate.recipients;
  await client.query(
    `insert into documents.envelope_recipients (
       id, envelope_id, position, name, email, role, order_group, require_email_code, embedded, fields, status
     )
     select id, $1, position, name, email, role, order_group, require_email_code, embedded, fields, 'waiting'
     from jsonb_to_recordset($2::jsonb) as x(
       id text, position integer, name text, email text, role text, order_group integer,
       require_email_code boolean, embedded boolean, fields jsonb
     )`,
    [
      e.id,
      JSON.stringify(
        r.map((x) => ({
          id: x.id,
          position: x.position,
          name: x.name,
          email: x.email,
          role: x.role,
          order_group: x.orderGroup,
          require_email_code: x.requireEmailCode,
          embedded: x.embedded,
          fields: x.fields,
        })),
      ),
    ],
  );
};

type TColumnValue = string | number | boolean | Date | null;

const updateRow = async (
  client: Queryable,
  table: string,
  id: string,
  set: Record<string, TColumnValue>,
): Promise<void> => {
  const columns = Object.keys(set);
  await client.query(
    `update documents.${table} set ${columns.map((c, i) => `${c} = $${i + 2}`).join(', ')} where id = $1`,
    [id, ...Object.values(set)],
  );
};

/** Set columns of an envelope (names are fixed by the callers, values are parameters). */
export const updateEnvelope = (client: Queryable, id: string, set: Record<string, TColumnValue>) =>
  updateRow(client, 'envelopes', id, set);

/** Set columns of a recipient. */
export const updateRecipient = (client: Queryable, id: string, set: Record<string, TColumnValue>) =>
  updateRow(client, 'envelope_recipients', id, set);

/** A recipient's new status, with when they acted or were notified (other columns are kept). */
export interface TRecipientStatusChange {
  readonly id: string;
  readonly status: TRecipientStatus;
  readonly actedAt?: Date;
  readonly notifiedAt?: Date;
}

/** Set the status of several recipients in one statement (an act and the turn it opens). */
export const updateRecipientStatuses = async (
  client: Queryable,
  changes: readonly TRecipientStatusChange[],
): Promise<void> => {
  if (changes.length === 0) return;
  await client.query(
    prepared(
      'update-recipient-statuses',
      `update documents.envelope_recipients r
     set status = x.status, acted_at = coalesce(x.acted_at, r.acted_at),
       notified_at = coalesce(x.notified_at, r.notified_at)
     from jsonb_to_recordset($1::jsonb) as x(id text, status text, acted_at timestamptz, notified_at timestamptz)
     where r.id = x.id`,
      [
        JSON.stringify(
          changes.map((c) => ({
            id: c.id,
            status: c.status,
            acted_at: c.actedAt?.toISOString() ?? null,
            notified_at: c.notifiedAt?.toISOString() ?? null,
          })),
        ),
      ],
    ),
  );
};

/** Append entries to an envelope's story, in the given order. */
export const appendStory = async (
  client: Queryable,
  envelopeId: string,
  entries: readonly TEnvelopeStoryEntry[],
): Promise<void> => {
  if (entries.length === 0) return;
  await client.query(
    prepared(
      'append-envelope-story',
      `insert into documents.envelope_events (envelope_id, recipient_id, event, at, ip_address, user_agent, details)
     select $1, x->>'recipient_id', x->>'event', (x->>'at')::timestamptz, x->>'ip_address',
       x->>'user_agent', x->'details'
     from jsonb_array_elements($2::jsonb) with ordinality as t(x, n) order by n`,
      [
        envelopeId,
        JSON.stringify(
          entries.map((e) => ({
            recipient_id: e.recipientId,
            event: e.event,
            at: e.at.toISOString(),
            ip_address: e.ipAddress,
            user_agent: e.userAgent,
            details: e.details,
          })),
        ),
      ],
    ),
  );
};

/** An envelope's story, oldest first. */
export const readStory = async (client: Queryable, envelopeId: string): Promise<TEnvelopeStoryEntry[]> => {
  const { rows } = await client.query<TEnvelopeStoryEntry>(
    `select recipient_id as "recipientId", event, at, ip_address as "ipAddress", user_agent as "userAgent",
       details
     from documents.envelope_events where envelope_id = $1 order by id`,
    [envelopeId],
  );
  return rows;
};

/** Revoke links: a recipient's (`recipientId`) or every link of an envelope (`envelopeId`). */
export const revokeLinks = async (
  client: Queryable,
  where: { recipientId: string } | { envelopeId: string },
  now: Date,
): Promise<void> => {
  if ('recipientId' in where) {
    await client.query(
      prepared(
        'revoke-recipient-links',
        'update documents.envelope_links set revoked_at = $2 where recipient_id = $1 and revoked_at is null',
        [where.recipientId, now],
      ),
    );
    return;
  }
  await client.query(
    `update documents.envelope_links set revoked_at = $2
     where revoked_at is null
       and recipient_id in (select id from documents.envelope_recipients where envelope_id = $1)`,
    [where.envelopeId, now],
  );
};

/**
 * Delete a recipient's links (a replaced person's): their tokens are then unknown, whatever becomes of
 * the envelope. The story keeps every email that was sent.
 */
export const deleteLinks = async (client: Queryable, recipientId: string): Promise<void> => {
  await client.query('delete from documents.envelope_links where recipient_id = $1', [recipientId]);
};

/** The address an envelope event in the outbox was for (`recipient.email`); undefined when no such row. */
export const findEventRecipientEmail = async (
  client: Queryable,
  eventId: string,
): Promise<string | undefined> => {
  const { rows } = await client.query<{ email: string | null }>(
    prepared(
      'outbox-event-recipient-email',
      `select payload->'recipient'->>'email' as email from documents.outbox where id = $1`,
      [eventId],
    ),
  );
  return rows[0]?.email ?? undefined;
};

/** Store a link's hash; `taken` when that hash is already stored. */
export const insertLink = async (
  client: Queryable,
  link: {
    tokenHash: string;
    recipientId: string;
    mode: string;
    eventId: string | null;
    now: Date;
    expiresAt: Date | null;
    code?: { hash: string; expiresAt: Date };
  },
): Promise<'attached' | 'taken'> => {
  const inserted = await client.query(
    prepared(
      'insert-envelope-link',
      `insert into documents.envelope_links (
       token_hash, recipient_id, mode, event_id, created_at, expires_at, code_hash, code_expires_at
     )
     values ($1, $2, $3, $4, $5, $6, $7, $8) on conflict (token_hash) do nothing`,
      [
        link.tokenHash,
        link.recipientId,
        link.mode,
        link.eventId,
        link.now,
        link.expiresAt,
        link.code?.hash ?? null,
        link.code?.expiresAt ?? null,
      ],
    ),
  );
  return inserted.rowCount === 1 ? 'attached' : 'taken';
};

/** Set a link's one-time-code columns (names fixed by the callers, values are parameters). */
export const updateLinkCode = async (
  client: Queryable,
  tokenHash: string,
  set: Partial<
    Record<
      | 'code_hash'
      | 'code_expires_at'
      | 'code_attempts'
      | 'code_verified_at'
      | 'code_requests'
      | 'code_window_start',
      TColumnValue
    >
  >,
): Promise<void> => {
  const columns = Object.keys(set);
  await client.query(
    `update documents.envelope_links set ${columns.map((c, i) => `${c} = $${i + 2}`).join(', ')}
     where token_hash = $1`,
    [tokenHash, ...Object.values(set)],
  );
};

/** Mark an embedded link used (its first view). */
export const markLinkUsed = async (client: Queryable, tokenHash: string, now: Date): Promise<void> => {
  await client.query('update documents.envelope_links set used_at = $2 where token_hash = $1', [
    tokenHash,
    now,
  ]);
};

/** A page of an account's envelopes, newest first, after a keyset position, optionally of one status. */
export const listEnvelopes = async (
  client: Queryable,
  query: {
    accountId: string;
    limit: number;
    after?: { createdAt: Date; id: string };
    status?: TEnvelopeStatus;
    now: Date;
  },
): Promise<TEnvelopeAggregate[]> => {
  const { rows } = await client.query<TEnvelopeRow>(
    `select ${ENVELOPE_COLUMNS} from documents.envelopes
     where account_id = $1
       and ($2::timestamptz is null or (created_at, id) < ($2::timestamptz, $3::text))
       and ($4::text is null or (case when status = 'pending' and not completing and expires_at <= $5
                                      then 'expired' else status end) = $4::text)
     order by created_at desc, id desc limit $6`,
    [
      query.accountId,
      query.after?.createdAt ?? null,
      query.after?.id ?? null,
      query.status ?? null,
      query.now,
      query.limit,
    ],
  );
  const recipients = await readRecipients(
    client,
    rows.map((r) => r.id),
  );
  return rows.map((envelope) => ({
    envelope,
    recipients: recipients.filter((r) => r.envelopeId === envelope.id),
  }));
};

/** An outbox entry: its `eventId` is the row id (and so the `Nats-Msg-Id`). */
export const envelopeOutboxEntry = (
  subject: string,
  build: (eventId: string) => Record<string, unknown>,
): TOutboxEntry => {
  const id = randomUUID();
  return { id, subject, payload: build(id), traceContext: traceCarrier() };
};
