CREATE SCHEMA IF NOT EXISTS "mailer";
--> statement-breakpoint
CREATE TABLE "mailer"."deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"event_id" uuid NOT NULL,
	"kind" text NOT NULL,
	"recipient" text NOT NULL,
	"send_id" text NOT NULL,
	"audit_id" text NOT NULL,
	"state" text DEFAULT 'queued' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"message_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	CONSTRAINT "deliveries_event_recipient_kind_unique" UNIQUE("event_id","recipient","kind"),
	CONSTRAINT "deliveries_state_check" CHECK ("mailer"."deliveries"."state" in ('queued', 'sending', 'sent', 'failed', 'skipped'))
);
--> statement-breakpoint
CREATE INDEX "deliveries_send_id_idx" ON "mailer"."deliveries" USING btree ("send_id","created_at");