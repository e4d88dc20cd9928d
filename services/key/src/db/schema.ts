import { sql } from 'drizzle-orm';
import { check, index, pgSchema, text, timestamp, uuid } from 'drizzle-orm/pg-core';

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

export const schema = { accounts, apiKeys };
export type TKeySchema = typeof schema;
