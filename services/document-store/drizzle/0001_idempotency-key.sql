ALTER TABLE "documents"."documents" ADD COLUMN "idempotency_key" text;--> statement-breakpoint
ALTER TABLE "documents"."documents" ADD COLUMN "request_hash" text;--> statement-breakpoint
CREATE UNIQUE INDEX "documents_account_idempotency_key_idx" ON "documents"."documents" USING btree ("account_id","idempotency_key") WHERE "documents"."documents"."idempotency_key" is not null;