ALTER TABLE "documents"."envelope_links" ADD COLUMN "code_hash" text;--> statement-breakpoint
ALTER TABLE "documents"."envelope_links" ADD COLUMN "code_expires_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "documents"."envelope_links" ADD COLUMN "code_attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "documents"."envelope_links" ADD COLUMN "code_verified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "documents"."envelope_links" ADD COLUMN "code_requests" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "documents"."envelope_links" ADD COLUMN "code_window_start" timestamp with time zone;