import { sql } from 'drizzle-orm';
import { check, index, integer, pgSchema, text, timestamp, unique, uuid } from 'drizzle-orm/pg-core';

/** Everything the mailer keeps lives in its own Postgres schema. */
export const mailerSchema = pgSchema('mailer');

/** States of one email: see services/mailer/README.md. */
export const DELIVERY_STATES = ['queued', 'sending', 'sent', 'failed', 'skipped'] as const;
export type TDeliveryState = (typeof DELIVERY_STATES)[number];

/**
 * The delivery log: one row per email, i.e. per (event, recipient, kind). The unique constraint is
 * what makes a redelivered event send nothing twice. No row ever holds an email's body or a signing
 * link: only who, what kind, and what happened (and, for a link that needs a one-time code, the
 * hash of its token).
 */
export const deliveries = mailerSchema.table(
  'deliveries',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The event's `eventId` (document-store's outbox row id). */
    eventId: uuid('event_id').notNull(),
    /**
     * signing-request | reminder | completed | declined | expired | canceled | sign-in-link |
     * webhook-disabled | envelope-turn | envelope-reminder | envelope-completed | envelope-declined |
     * envelope-canceled | envelope-expired | envelope-code
     */
    kind: text('kind').notNull(),
    /** Lowercased address the email goes to. */
    recipient: text('recipient').notNull(),
    /** The signing request's `send_…` ID, or the envelope's `env_…` ID for an envelope's emails. */
    sendId: text('send_id').notNull(),
    auditId: text('audit_id').notNull(),
    state: text('state', { enum: DELIVERY_STATES }).notNull().default('queued'),
    /** SMTP attempts so far. */
    attempts: integer('attempts').notNull().default(0),
    /** Why the last attempt failed, or why the email was skipped. */
    lastError: text('last_error'),
    /** The Message-ID of the email as sent. */
    messageId: text('message_id'),
    /**
     * The SHA-256 (hex) of the link's token this email carried, for a `requireEmailCode` recipient's
     * turn, resend or reminder only: what a retry of the code's email binds a new code to
     * (`envelope.set-code`). A hash, as document-store keeps it: it opens nothing. Never the token.
     */
    linkTokenHash: text('link_token_hash'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    sentAt: timestamp('sent_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    unique('deliveries_event_recipient_kind_unique').on(t.eventId, t.recipient, t.kind),
    index('deliveries_send_id_idx').on(t.sendId, t.createdAt),
    check('deliveries_state_check', sql`${t.state} in ('queued', 'sending', 'sent', 'failed', 'skipped')`),
  ],
);

export const schema = { deliveries };
export type TMailerSchema = typeof schema;
