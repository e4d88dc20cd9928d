import type { DocumentSigned } from '@esign/contracts';
import type { z } from 'zod';
import type { QuotaRepository } from '../db/quota-repository';
import { utcMonth } from './utc-month';

type TDocumentSigned = z.infer<(typeof DocumentSigned)['payload']>;

interface Waiting {
  readonly document: { documentId: string; accountId: string; month: string };
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

/**
 * Counts the documents that were made without a reservation (`countFromRecord`: their account's plan
 * has no monthly limit, so nothing had to be refused before signing) from their
 * `events.document.signed`, in the UTC month they were signed in. Other documents were counted when
 * they were reserved: their events resolve at once.
 *
 * Events that arrive while a write is running are written together by the next one (one statement,
 * one commit for all of them), so the cost per document falls as signings come faster instead of
 * adding a commit to each. Each returned promise settles once its event's write has committed (the
 * consumer then acks it) or failed (the consumer has it redelivered; counting it again is harmless).
 */
export const createRecordedDocumentCounter = (
  quotas: Pick<QuotaRepository, 'countRecorded'>,
): ((event: TDocumentSigned) => Promise<void>) => {
  let waiting: Waiting[] = [];
  let writing = false;

  const write = async () => {
    while (waiting.length > 0) {
      const batch = waiting;
      waiting = [];
      try {
        await quotas.countRecorded(batch.map((w) => w.document));
        for (const w of batch) w.resolve();
      } catch (err) {
        for (const w of batch) w.reject(err);
      }
    }
    writing = false;
  };

  return (event) => {
    if (!event.countFromRecord) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const month = utcMonth(new Date(event.signedAt)).firstDay;
      waiting.push({
        document: { documentId: event.documentId, accountId: event.accountId, month },
        resolve,
        reject,
      });
      if (!writing) {
        writing = true;
        // After the messages of the same read have been handed over, so that they share the write.
        setImmediate(() => void write());
      }
    });
  };
};
