import type { TConcurrentIndex } from '@esign/db';

/**
 * Indexes of `documents` built with CREATE INDEX CONCURRENTLY after the migrations, outside their
 * transaction, so that building them on a large table does not block inserts (see the header of
 * drizzle/0003_list-at-scale.sql). Each is declared in schema.ts too, so the drizzle snapshot has it.
 */
export const CONCURRENT_INDEXES: readonly TConcurrentIndex[] = [
  {
    name: 'documents_file_name_trgm_idx',
    sql: 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "documents_file_name_trgm_idx" ON "documents"."documents" USING gin ("file_name" gin_trgm_ops)',
  },
  {
    name: 'documents_file_hash_idx',
    sql: 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "documents_file_hash_idx" ON "documents"."documents" USING btree ("file_hash")',
  },
];
