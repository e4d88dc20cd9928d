CREATE TABLE "documents"."signing_events" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "documents"."signing_events_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"send_id" text NOT NULL,
	"event" text NOT NULL,
	"timestamp" timestamp with time zone NOT NULL,
	"details" jsonb NOT NULL,
	"by_recipient" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE TABLE "documents"."signing_links" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"send_id" text NOT NULL,
	"event_id" uuid NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"revoked_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "documents"."signing_requests" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"audit_id" text NOT NULL,
	"sender_email" text NOT NULL,
	"recipient_email" text NOT NULL,
	"recipient_name" text NOT NULL,
	"subject" text NOT NULL,
	"message" text,
	"file_name" text NOT NULL,
	"object_key" text NOT NULL,
	"page_count" integer,
	"positions" jsonb NOT NULL,
	"status" text NOT NULL,
	"sent_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"viewed_at" timestamp with time zone,
	"signed_at" timestamp with time zone,
	"declined_at" timestamp with time zone,
	"decline_reason" text,
	"canceled_at" timestamp with time zone,
	"expired_at" timestamp with time zone,
	"file_hash" text,
	"idempotency_key" text,
	"request_hash" text,
	"reminder_count" integer DEFAULT 0 NOT NULL,
	"next_reminder_at" timestamp with time zone,
	"claimed_until" timestamp with time zone,
	"original_removed_at" timestamp with time zone,
	CONSTRAINT "signing_requests_audit_id_unique" UNIQUE("audit_id"),
	CONSTRAINT "signing_requests_status_check" CHECK ("documents"."signing_requests"."status" in ('pending', 'signed', 'declined', 'canceled', 'expired'))
);
--> statement-breakpoint
ALTER TABLE "documents"."signing_events" ADD CONSTRAINT "signing_events_send_id_signing_requests_id_fk" FOREIGN KEY ("send_id") REFERENCES "documents"."signing_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "documents"."signing_links" ADD CONSTRAINT "signing_links_send_id_signing_requests_id_fk" FOREIGN KEY ("send_id") REFERENCES "documents"."signing_requests"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "signing_events_send_id_idx" ON "documents"."signing_events" USING btree ("send_id","id");--> statement-breakpoint
CREATE INDEX "signing_links_send_id_idx" ON "documents"."signing_links" USING btree ("send_id");--> statement-breakpoint
CREATE UNIQUE INDEX "signing_requests_account_idempotency_key_idx" ON "documents"."signing_requests" USING btree ("account_id","idempotency_key") WHERE "documents"."signing_requests"."idempotency_key" is not null;--> statement-breakpoint
CREATE INDEX "signing_requests_account_sent_at_idx" ON "documents"."signing_requests" USING btree ("account_id","sent_at");--> statement-breakpoint
CREATE INDEX "signing_requests_pending_expires_idx" ON "documents"."signing_requests" USING btree ("expires_at") WHERE "documents"."signing_requests"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "signing_requests_original_to_remove_idx" ON "documents"."signing_requests" USING btree ("id") WHERE "documents"."signing_requests"."status" <> 'pending' and "documents"."signing_requests"."original_removed_at" is null;--> statement-breakpoint
CREATE INDEX "signing_requests_pending_reminder_idx" ON "documents"."signing_requests" USING btree ("next_reminder_at") WHERE "documents"."signing_requests"."status" = 'pending' and "documents"."signing_requests"."next_reminder_at" is not null;