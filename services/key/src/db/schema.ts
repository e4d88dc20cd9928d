import { sql } from 'drizzle-orm';
import {
  check,
  date,
  index,
  integer,
  pgSchema,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Everything the key service keeps lives in its own Postgres schema. */
export const keySchema = pgSchema('key');

/** An account: who owns keys, and the plan that decides what they may do. */
export const accounts = keySchema.table(
  'accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** Always stored lowercased, so that lookups and the unique constraint ignore case. */
    email: text('email').notNull().unique('accounts_email_unique'),
    plan: text('plan', { enum: ['free', 'pro', 'business'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    /**
     * scrypt hash with its parameters and salt (`$scrypt$ln=15,r=8,p=1$<salt>$<hash>`); null for an
     * account made by the operator CLI that has no password yet.
     */
    passwordHash: text('password_hash'),
    passwordChangedAt: at('password_changed_at'),
    /** First time a sign-in link sent to the address was used. */
    emailVerifiedAt: at('email_verified_at'),
    /**
     * Origins (`https://host[:port]`) allowed to frame the account's embedded signing pages, as
     * browsers serialise them; empty: embedded signing is off.
     */
    embedOrigins: text('embed_origins')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
  },
  (t) => [
    check('accounts_plan_check', sql`${t.plan} in ('free', 'pro', 'business')`),
    check('accounts_email_lowercase_check', sql`${t.email} = lower(${t.email})`),
  ],
);

/** API keys, by their SHA-256 only: the plain key is shown once at creation and never stored. */
export const apiKeys = keySchema.table(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** SHA-256 of the plain key, lowercase hex. */
    keyHash: text('key_hash').notNull().unique('api_keys_key_hash_unique'),
    /** The first characters of the key, enough for a person to tell keys apart; not a secret. */
    prefix: text('prefix').notNull(),
    label: text('label'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [index('api_keys_account_created_idx').on(t.accountId, t.createdAt, t.id)],
);

/** Dashboard sessions, by the SHA-256 of their token only. */
export const sessions = keySchema.table(
  'sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** SHA-256 of the session token (the cookie value), lowercase hex. */
    tokenHash: text('token_hash').notNull().unique('sessions_token_hash_unique'),
    /**
     * Secret for the gateway's CSRF token. Kept as is (it must be handed back on every verification); it is
     * not a credential: without the session token, which is stored only hashed, it is worth nothing.
     */
    csrfSecret: text('csrf_secret').notNull(),
    userAgent: text('user_agent'),
    createdAt: at('created_at').notNull().defaultNow(),
    /** Last verification, written at most once per SESSION_TOUCH_INTERVAL_MS; the idle lifetime runs from it. */
    lastSeenAt: at('last_seen_at').notNull().defaultNow(),
    /** The absolute end of the session. */
    expiresAt: at('expires_at').notNull(),
  },
  (t) => [index('sessions_account_idx').on(t.accountId), index('sessions_expires_idx').on(t.expiresAt)],
);

/** One-time tokens for emailed sign-in links, by their SHA-256 only. */
export const signInTokens = keySchema.table(
  'sign_in_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull().unique('sign_in_tokens_token_hash_unique'),
    createdAt: at('created_at').notNull().defaultNow(),
    expiresAt: at('expires_at').notNull(),
    usedAt: at('used_at'),
  },
  (t) => [index('sign_in_tokens_expires_idx').on(t.expiresAt)],
);

/**
 * Password sign-in attempts per email in a fixed window, counted before the password is checked and
 * cleared by a success. Keyed by the SHA-256 of the normalised email, known or not, so a limit
 * reveals nothing about which emails have accounts.
 */
export const signInAttempts = keySchema.table('sign_in_attempts', {
  emailHash: text('email_hash').primaryKey(),
  attempts: integer('attempts').notNull(),
  windowStartedAt: at('window_started_at').notNull(),
});

/**
 * Sign-in link requests per address, to limit the link emails an address gets (a sliding window).
 * Keyed by the request's id (a retry counts once); the address only as the SHA-256 of the normalised
 * email, known or not, so the limit reveals nothing about which emails have accounts.
 */
export const signInLinkRequests = keySchema.table(
  'sign_in_link_requests',
  {
    requestId: uuid('request_id').primaryKey(),
    emailHash: text('email_hash').notNull(),
    createdAt: at('created_at').notNull(),
  },
  (t) => [index('sign_in_link_requests_email_idx').on(t.emailHash, t.createdAt)],
);

/** Documents counted per account and calendar month (UTC); `month` is the month's first day. */
export const documentUsage = keySchema.table(
  'document_usage',
  {
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    month: date('month', { mode: 'string' }).notNull(),
    used: integer('used').notNull(),
  },
  (t) => [
    primaryKey({ name: 'document_usage_pk', columns: [t.accountId, t.month] }),
    check('document_usage_used_check', sql`${t.used} >= 0`),
  ],
);

/** Each counted document, so that a release gives back exactly one, once. */
export const documentReservations = keySchema.table(
  'document_reservations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    month: date('month', { mode: 'string' }).notNull(),
    createdAt: at('created_at').notNull().defaultNow(),
    releasedAt: at('released_at'),
    /**
     * The document it counts, when it was counted from the document's record (`events.document.signed`
     * with `countFromRecord`) instead of reserved before signing: unique, so a redelivered event
     * counts once. Null for a reservation.
     */
    documentId: uuid('document_id'),
  },
  (t) => [
    index('document_reservations_account_idx').on(t.accountId, t.month),
    uniqueIndex('document_reservations_document_idx')
      .on(t.documentId)
      .where(sql`document_id is not null`),
  ],
);

export const schema = {
  accounts,
  apiKeys,
  sessions,
  signInTokens,
  signInAttempts,
  signInLinkRequests,
  documentUsage,
  documentReservations,
};
export type TKeySchema = typeof schema;
