import { loadConfig, ZBaseEnv, ZDbEnv } from '@esign/config';
import { z } from 'zod';

/** Environment of document-store. */
export const ZDocumentStoreEnv = ZBaseEnv.extend(ZDbEnv.shape).extend({
  /** How often the outbox relay looks for unpublished rows besides being woken by each record. */
  OUTBOX_POLL_MS: z.coerce.number().int().positive().default(1000),
  /**
   * How long the relay waits after a record before its pass, so that the records of a burst share one
   * pass (one select, one batch of publishes, one update) instead of paying for a pass each.
   */
  OUTBOX_COALESCE_MS: z.coerce.number().int().min(0).max(1000).default(100),
  /** Rows the relay claims per transaction. */
  OUTBOX_BATCH_SIZE: z.coerce.number().int().min(1).max(1000).default(100),
});
export type TDocumentStoreConfig = z.infer<typeof ZDocumentStoreEnv>;

/** Parse document-store's configuration once, failing fast with every problem named. */
export const loadDocumentStoreConfig = (env: NodeJS.ProcessEnv = process.env): TDocumentStoreConfig =>
  loadConfig(ZDocumentStoreEnv, env);
