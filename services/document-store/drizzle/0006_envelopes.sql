CREATE TABLE "documents"."envelope_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "documents"."envelope_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"envelope_id" text NOT NULL,
	"recipient_id" text,
	"event" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"ip_address" text,
	"user_agent" text,
	"details" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "documents"."envelope_links" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"recipient_id" text NOT NULL,
	"mode" text NOT NULL,
	"event_id" uuid,
	"created_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone,
	"expires_at" timestamp with time zone,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "documents"."envelope_recipients" (
	"id" text PRIMARY KEY NOT NULL,
	"envelope_id" text NOT NULL,
	"position" integer NOT NULL,
	"name" text NOT NULL,
	"email" text NOT NULL,
	"role" text NOT NULL,
	"order_group" integer NOT NULL,
	"require_email_code" boolean NOT NULL,
	"embedded" boolean NOT NULL,
	"fields" jsonb NOT NULL,
	"status" text NOT NULL,
	"notified_at" timestamp with time zone,
	"viewed_at" timestamp with time zone,
	"acted_at" timestamp with time zone,
	"decline_reason" text,
	"reminders_sent" integer DEFAULT 0 NOT NULL,
	"last_reminded_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "documents"."envelopes" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"audit_id" text NOT NULL,
	"sender_email" text NOT NULL,
	"subject" text NOT NULL,
	"message" text,
	"file_name" text NOT NULL,
	"original_key" text NOT NULL,
	"original_hash" text NOT NULL,
	"page_count" integer NOT NULL,
	"status" text NOT NULL,
	"head_key" text NOT NULL,
	"revision" integer DEFAULT 0 NOT NULL,
	"claim_recipient_id" text,
	"claimed_until" timestamp with time zone,
	"completing" boolean DEFAULT false NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"reminders" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"completed_at" timestamp with time zone,
	"declined_at" timestamp with time zone,
	"decline_reason" text,
	"canceled_at" timestamp with time zone,
	"expired_at" timestamp with time zone,
	"file_hash" text,
	"signed_key" text,
	"idempotency_key" text,
	"request_hash" text,
	CONSTRAINT "envelopes_audit_id_unique" UNIQUE("audit_id"),
	CONSTRAINT "envelopes_status_check" CHECK ("documents"."envelopes"."status" in ('pending', 'completed', 'declined', 'canceled', 'expired'))
);
--> statement-breakpoint
ALTER TABLE "documents"."envelope_events" ADD CONSTRAINT "envelope_events_envelope_id_envelopes_id_fk" FOREIGN KEY ("envelope_id") REFERENCES "documents"."envelopes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "documents"."envelope_links" ADD CONSTRAINT "envelope_links_recipient_id_envelope_recipients_id_fk" FOREIGN KEY ("recipient_id") REFERENCES "documents"."envelope_recipients"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "documents"."envelope_recipients" ADD CONSTRAINT "envelope_recipients_envelope_id_envelopes_id_fk" FOREIGN KEY ("envelope_id") REFERENCES "documents"."envelopes"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "envelope_events_envelope_id_idx" ON "documents"."envelope_events" USING btree ("envelope_id","id");--> statement-breakpoint
CREATE INDEX "envelope_links_recipient_id_idx" ON "documents"."envelope_links" USING btree ("recipient_id");--> statement-breakpoint
CREATE UNIQUE INDEX "envelope_recipients_envelope_position_idx" ON "documents"."envelope_recipients" USING btree ("envelope_id","position");--> statement-breakpoint
CREATE UNIQUE INDEX "envelopes_account_idempotency_key_idx" ON "documents"."envelopes" USING btree ("account_id","idempotency_key") WHERE "documents"."envelopes"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "envelopes_account_created_at_idx" ON "documents"."envelopes" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "envelopes_pending_expires_idx" ON "documents"."envelopes" USING btree ("expires_at") WHERE "documents"."envelopes"."status" = 'pending';