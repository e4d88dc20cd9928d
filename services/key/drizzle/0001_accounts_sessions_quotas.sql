CREATE TABLE "key"."document_reservations" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"month" date NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"released_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "key"."document_usage" (
	"account_id" uuid NOT NULL,
	"month" date NOT NULL,
	"used" integer NOT NULL,
	CONSTRAINT "document_usage_pk" PRIMARY KEY("account_id","month"),
	CONSTRAINT "document_usage_used_check" CHECK ("key"."document_usage"."used" >= 0)
);
--> statement-breakpoint
CREATE TABLE "key"."sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"csrf_secret" text NOT NULL,
	"user_agent" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "sessions_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
CREATE TABLE "key"."sign_in_attempts" (
	"email_hash" text PRIMARY KEY NOT NULL,
	"attempts" integer NOT NULL,
	"window_started_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "key"."sign_in_tokens" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"account_id" uuid NOT NULL,
	"token_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	CONSTRAINT "sign_in_tokens_token_hash_unique" UNIQUE("token_hash")
);
--> statement-breakpoint
ALTER TABLE "key"."accounts" ADD COLUMN "password_hash" text;--> statement-breakpoint
ALTER TABLE "key"."accounts" ADD COLUMN "password_changed_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "key"."accounts" ADD COLUMN "email_verified_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "key"."document_reservations" ADD CONSTRAINT "document_reservations_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "key"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key"."document_usage" ADD CONSTRAINT "document_usage_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "key"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key"."sessions" ADD CONSTRAINT "sessions_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "key"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "key"."sign_in_tokens" ADD CONSTRAINT "sign_in_tokens_account_id_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "key"."accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "document_reservations_account_idx" ON "key"."document_reservations" USING btree ("account_id","month");--> statement-breakpoint
CREATE INDEX "sessions_account_idx" ON "key"."sessions" USING btree ("account_id");--> statement-breakpoint
CREATE INDEX "sessions_expires_idx" ON "key"."sessions" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "sign_in_tokens_expires_idx" ON "key"."sign_in_tokens" USING btree ("expires_at");