import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  check,
  index,
  integer,
  jsonb,
  pgSchema,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

/** Everything the webhook service keeps lives in its own Postgres schema. */
export const webhookSchema = pgSchema('webhook');

const at = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** An account's endpoint. Its secrets are sealed (AES-256-GCM, see domain/secret-box.ts), never plain. */
export const endpoints = webhookSchema.table(
  'endpoints',
  {
    id: text('id').primaryKey(),
    accountId: uuid('account_id').notNull(),
    url: text('url').notNull(),
    description: text('description').notNull().default(''),
    eventTypes: text('event_types').array().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    /** gone | failing | manual */
    disabledReason: text('disabled_reason'),
    disabledAt: at('disabled_at'),
    /** First failed attempt since the last success. */
    failingSince: at('failing_since'),
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretExpiresAt: at('previous_secret_expires_at'),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [index('endpoints_account_idx').on(t.accountId, t.createdAt)],
);

/**
 * Every event an account could receive, as its payload's snapshot (`data`, without the download link,
 * which is made for each attempt), so that it can be delivered later and replayed.
 */
export const events = webhookSchema.table(
  'events',
  {
    id: text('id').primaryKey(),
    accountId: uuid('account_id').notNull(),
    type: text('type').notNull(),
    occurredAt: at('occurred_at').notNull(),
    data: jsonb('data').notNull(),
    /** The signed PDF, for the download link of document.signed, signing.completed and envelope.completed. */
    objectKey: text('object_key'),
    createdAt: at('created_at').notNull().defaultNow(),
  },
  (t) => [index('events_account_idx').on(t.accountId, t.createdAt)],
);

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/**
 * One event to one endpoint: unique per (event, endpoint) for the event itself, so a redelivered
 * JetStream message adds nothing; replays and test events are rows of their own.
 */
export const deliveries = webhookSchema.table(
  'deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => endpoints.id, { onDelete: 'cascade' }),
    /** event | replay | test */
    kind: text('kind').notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    /** Due time of the next attempt (also the lease of an attempt in progress); null when final. */
    nextAttemptAt: at('next_attempt_at'),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('deliveries_event_endpoint_unique')
      .on(t.eventId, t.endpointId)
      .where(sql`${t.kind} = 'event'`),
    index('deliveries_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
    index('deliveries_endpoint_idx').on(t.endpointId, t.createdAt),
    check('deliveries_status_check', sql`${t.status} in ('pending', 'succeeded', 'failed')`),
    check('deliveries_kind_check', sql`${t.kind} in ('event', 'replay', 'test')`),
  ],
);

/** Every attempt of a delivery: the delivery log. */
export const attempts = webhookSchema.table(
  'attempts',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    deliveryId: uuid('delivery_id')
      .notNull()
      .references(() => deliveries.id, { onDelete: 'cascade' }),
    attemptedAt: at('attempted_at').notNull(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms').notNull(),
    succeeded: boolean('succeeded').notNull(),
    error: text('error'),
    responseExcerpt: text('response_excerpt'),
  },
  (t) => [index('attempts_delivery_idx').on(t.deliveryId, t.id)],
);

export const schema = { endpoints, events, deliveries, attempts };
export type TWebhookSchema = typeof schema;
