CREATE SCHEMA IF NOT EXISTS "webhook";
--> statement-breakpoint
CREATE TABLE "webhook"."attempts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "webhook"."attempts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"delivery_id" uuid NOT NULL,
	"attempted_at" timestamp with time zone NOT NULL,
	"status_code" integer,
	"latency_ms" integer NOT NULL,
	"succeeded" boolean NOT NULL,
	"error" text,
	"response_excerpt" text
);
--> statement-breakpoint
CREATE TABLE "webhook"."deliveries" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"event_id" text NOT NULL,
	"endpoint_id" text NOT NULL,
	"kind" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "deliveries_status_check" CHECK ("webhook"."deliveries"."status" in ('pending', 'succeeded', 'failed')),
	CONSTRAINT "deliveries_kind_check" CHECK ("webhook"."deliveries"."kind" in ('event', 'replay', 'test'))
);
--> statement-breakpoint
CREATE TABLE "webhook"."endpoints" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"url" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"event_types" text[] NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"disabled_reason" text,
	"disabled_at" timestamp with time zone,
	"failing_since" timestamp with time zone,
	"secret" text NOT NULL,
	"previous_secret" text,
	"previous_secret_expires_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "webhook"."events" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"type" text NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"data" jsonb NOT NULL,
	"object_key" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "webhook"."attempts" ADD CONSTRAINT "attempts_delivery_id_deliveries_id_fk" FOREIGN KEY ("delivery_id") REFERENCES "webhook"."deliveries"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook"."deliveries" ADD CONSTRAINT "deliveries_event_id_events_id_fk" FOREIGN KEY ("event_id") REFERENCES "webhook"."events"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "webhook"."deliveries" ADD CONSTRAINT "deliveries_endpoint_id_endpoints_id_fk" FOREIGN KEY ("endpoint_id") REFERENCES "webhook"."endpoints"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "attempts_delivery_idx" ON "webhook"."attempts" USING btree ("delivery_id","id");--> statement-breakpoint
CREATE UNIQUE INDEX "deliveries_event_endpoint_unique" ON "webhook"."deliveries" USING btree ("event_id","endpoint_id") WHERE "webhook"."deliveries"."kind" = 'event';--> statement-breakpoint
CREATE INDEX "deliveries_due_idx" ON "webhook"."deliveries" USING btree ("next_attempt_at") WHERE "webhook"."deliveries"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "deliveries_endpoint_idx" ON "webhook"."deliveries" USING btree ("endpoint_id","created_at");--> statement-breakpoint
CREATE INDEX "endpoints_account_idx" ON "webhook"."endpoints" USING btree ("account_id","created_at");--> statement-breakpoint
CREATE INDEX "events_account_idx" ON "webhook"."events" USING btree ("account_id","created_at");