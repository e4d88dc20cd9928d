CREATE TABLE "key"."sign_in_link_requests" (
	"request_id" uuid PRIMARY KEY NOT NULL,
	"email_hash" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "sign_in_link_requests_email_idx" ON "key"."sign_in_link_requests" USING btree ("email_hash","created_at");