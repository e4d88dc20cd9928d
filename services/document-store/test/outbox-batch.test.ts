import { DocumentRecord } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import type { JsMsg } from 'nats';
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { recordRequest, test, type TestBed } from './helpers';

let bed: TestBed;
let db: pg.Client;
const logs: { msg: string; count?: number }[] = [];

/** Every message now in the prefixed event stream. */
const readStream = async (): Promise<JsMsg[]> => {
  const jsm = await bed.client.connection.jetstreamManager();
  const { state } = await jsm.streams.info(bed.client.streamName);
  const messages: JsMsg[] = [];
  if (state.messages === 0) return messages;
  const consumer = await bed.client.jetstream.consumers.get(bed.client.streamName);
  for (;;) {
    const msg = await consumer.next({ expires: 2000 });
    if (!msg) throw new Error('stream ended before its last sequence');
    messages.push(msg);
    if (msg.info.streamSequence >= state.last_seq) return messages;
  }
};

const unpublished = async (): Promise<number> => {
  const { rows } = await db.query<{ n: string }>(
    'select count(*) as n from documents.outbox where published_at is null',
  );
  return Number(rows[0]?.n);
};

/** The relay's passes that published something, by the rows each published. */
const passes = () => logs.filter((l) => l.msg === 'outbox rows published').map((l) => l.count ?? 0);

// No timed polls: every pass here is one a record asked for.
test.override('storeOptions', {
  label: 'outbox_batch',
  config: { OUTBOX_POLL_MS: 3_600_000, OUTBOX_COALESCE_MS: 500 },
  logger: createLogger({
    service: 'document-store',
    level: 'debug',
    write: (line) => void logs.push(JSON.parse(line) as { msg: string; count?: number }),
  }),
});

test.beforeAll(({ bed: fileBed, db: fileDb }) => {
  bed = fileBed;
  db = fileDb;
});

describe('outbox relay under a burst', () => {
  it('publishes a burst of 200 records to JetStream exactly once, in a few passes', async () => {
    const ids = await Promise.all(
      Array.from({ length: 200 }, async () => (await bed.client.request(DocumentRecord, recordRequest())).id),
    );
    await expect.poll(unpublished, { timeout: 10_000 }).toBe(0);

    const messages = await readStream();
    expect(messages).toHaveLength(200);
    expect(new Set(messages.map((m) => m.json<{ documentId: string }>().documentId))).toEqual(new Set(ids));
    const msgIds = messages.map((m) => m.headers?.get('Nats-Msg-Id'));
    expect(new Set(msgIds).size).toBe(200);
    const { rows } = await db.query<{ id: string }>('select id from documents.outbox');
    expect(new Set(msgIds)).toEqual(new Set(rows.map((r) => r.id)));

    expect(passes().reduce((a, b) => a + b, 0)).toBe(200);
    // One pass per record before coalescing; how many now depends on how fast the burst arrives.
    expect(passes().length).toBeLessThanOrEqual(10);
  });

  it('leaves rows unpublished while no stream answers and sends them once one does, with one outage line', async () => {
    const jsm = await bed.client.connection.jetstreamManager();
    await jsm.streams.delete(bed.client.streamName);
    const stream = (msg: string) =>
      logs.filter(
        (l) =>
          l.msg === msg && (l as { dependency?: string }).dependency === 'JetStream stream (outbox relay)',
      ).length;
    const downBefore = stream('dependency unavailable');

    await bed.client.request(DocumentRecord, recordRequest());
    // No stream answers the publish (503), as while a cluster elects the stream's leader.
    await expect.poll(() => stream('dependency unavailable')).toBe(downBefore + 1);
    expect(await unpublished()).toBe(1);

    await bed.client.ensureEventStream();
    await bed.client.request(DocumentRecord, recordRequest());
    await expect.poll(unpublished).toBe(0);
    expect(await readStream()).toHaveLength(2);
    await expect.poll(() => stream('dependency available again')).toBeGreaterThan(0);
    expect(stream('dependency unavailable')).toBe(downBefore + 1);
  });
});
