import { loadConfig, ZBaseEnv, ZBlobEnv, ZDbEnv } from '@esign/config';
import { z } from 'zod';

/** Environment of document-store. */
export const ZDocumentStoreEnv = ZBaseEnv.extend(ZDbEnv.shape)
  .extend(ZBlobEnv.shape)
  .extend({
    OUTBOX_POLL_MS: z.coerce
      .number()
      .int()
      .positive()
      .default(1000)
      .describe('How often the outbox relay looks for unpublished rows besides being woken by each record.'),
    OUTBOX_COALESCE_MS: z.coerce
      .number()
      .int()
      .min(0)
      .max(1000)
      .default(100)
      .describe(
        'How long the relay waits after a record before its pass, so that the records of a burst share one pass (one select, one batch of publishes, one update) instead of paying for a pass each.',
      ),
    OUTBOX_BATCH_SIZE: z.coerce
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(100)
      .describe('Rows the relay claims per transaction.'),
    SIGNED_SWEEP_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(300_000)
      .describe(
        'How often the sweep of signed PDFs without a record runs (`src/sweep/`); 0 turns it off. One replica sweeps at a time.',
      ),
    SIGNED_SWEEP_GRACE_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(15 * 60_000)
      .describe(
        "Age under which a signed object is never swept, record or not: it must exceed the gateway's SIGN_TIMEOUT_MS (60 s by default) plus the time a record takes after the signer wrote the object, by a wide margin, because the sweep cannot tell a record about to commit from one that never will.",
      ),
    SIGNED_SWEEP_BATCH: z.coerce
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(1000)
      .describe('Signed objects one sweep looks at (the next run continues after the last one).'),
    SIGNING_SWEEP_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(0)
      .default(60_000)
      .describe(
        'How often the signing-request sweep runs (expiry and reminders, `src/sweep/signing-sweep.ts`); 0 turns it off. One replica sweeps at a time.',
      ),
    SIGNING_SWEEP_BATCH: z.coerce
      .number()
      .int()
      .min(1)
      .max(10_000)
      .default(500)
      .describe('Requests one sweep expires, and reminders it publishes, at most per run.'),
    SIGNING_REMINDER_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(60_000)
      .default(3 * 24 * 60 * 60_000)
      .describe('Time from sending to the first reminder, and between reminders (default 3 days).'),
    SIGNING_CLAIM_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(120_000)
      .describe(
        "How long `signing.claim` holds a request for one sign workflow: above the gateway's SIGN_TIMEOUT_MS (60 s by default) plus a record.",
      ),
    SIGNING_TEST_CLOCK_FILE: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Tests only (refused when NODE_ENV=production): a file holding a number of milliseconds that is added to the signing requests' clock (expiry, reminders, views), read at every use, so that an end-to-end test can move time forward. A missing or empty file means no offset.",
      ),
    SIGNING_REMINDERS_MAX: z.coerce
      .number()
      .int()
      .min(0)
      .max(10)
      .default(3)
      .describe('Reminders per request at most (0: none).'),
  });
export type TDocumentStoreConfig = z.infer<typeof ZDocumentStoreEnv>;

/** Parse document-store's configuration once, failing fast with every problem named. */
export const loadDocumentStoreConfig = (env: NodeJS.ProcessEnv = process.env): TDocumentStoreConfig =>
  loadConfig(ZDocumentStoreEnv, env);
