-- The origins allowed to frame an account's embedded signing pages (empty: embedding off). Adding a
-- column with a constant default rewrites nothing (Postgres 11+).
ALTER TABLE "key"."accounts" ADD COLUMN "embed_origins" text[] DEFAULT '{}'::text[] NOT NULL;