CREATE SCHEMA IF NOT EXISTS "documents";
--> statement-breakpoint
CREATE TABLE "documents"."audit_events" (
	"document_id" uuid NOT NULL,
	"sequence" integer NOT NULL,
	"event" text NOT NULL,
	"timestamp" timestamp with time zone NOT NULL,
	"details" jsonb NOT NULL,
	"prev_hash" text NOT NULL,
	"hash" text NOT NULL,
	CONSTRAINT "audit_events_pk" PRIMARY KEY("document_id","sequence")
);
--> statement-breakpoint
CREATE TABLE "documents"."documents" (
	"id" uuid PRIMARY KEY NOT NULL,
	"account_id" uuid NOT NULL,
	"audit_id" text NOT NULL,
	"file_name" text NOT NULL,
	"signer_name" text NOT NULL,
	"signer_email" text NOT NULL,
	"ip_address" text NOT NULL,
	"user_agent" text NOT NULL,
	"signed_at" timestamp with time zone NOT NULL,
	"file_hash" text NOT NULL,
	"original_hash" text NOT NULL,
	"object_key" text NOT NULL,
	"size" integer NOT NULL,
	"page_count" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "documents_audit_id_unique" UNIQUE("audit_id")
);
--> statement-breakpoint
CREATE TABLE "documents"."outbox" (
	"id" uuid PRIMARY KEY NOT NULL,
	"subject" text NOT NULL,
	"payload" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"published_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "documents"."audit_events" ADD CONSTRAINT "audit_events_document_id_documents_id_fk" FOREIGN KEY ("document_id") REFERENCES "documents"."documents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "documents_account_signed_at_idx" ON "documents"."documents" USING btree ("account_id","signed_at","id");--> statement-breakpoint
CREATE INDEX "documents_account_file_name_idx" ON "documents"."documents" USING btree ("account_id","file_name","id");--> statement-breakpoint
CREATE INDEX "documents_account_created_at_idx" ON "documents"."documents" USING btree ("account_id","created_at","id");--> statement-breakpoint
CREATE INDEX "outbox_unpublished_idx" ON "documents"."outbox" USING btree ("created_at","id") WHERE "documents"."outbox"."published_at" is null;