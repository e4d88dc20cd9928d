import { randomUUID } from 'node:crypto';
import { DocumentRecord, DocumentSigned } from '@esign/contracts';
import { newAuditId } from '@esign/ids';
import type { JsMsg } from 'nats';
import type pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '@esign/telemetry';
import type { TDocumentStoreConfig } from '../src/config';
import { startDocumentStore, type DocumentStore } from '../src/start';
import { recordRequest, sha256Hex, test, type TestBed } from './helpers';

let bed: TestBed;
let sut: DocumentStore;
/** The stores a test starts itself (after stopping `sut`, or as a second replica). */
const started: DocumentStore[] = [];
let db: pg.Client;
const logs: string[] = [];
const logger = createLogger({
  service: 'document-store',
  level: 'warn',
  write: (line) => void logs.push(line),
});
const start = async (config: TDocumentStoreConfig) => {
  const store = await startDocumentStore(config, { logger });
  started.push(store);
  return store;
};

/** Every message now in the prefixed event stream, read through an ephemeral ordered consumer. */
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

/** Wait until a message with this Nats-Msg-Id is in the stream. */
const waitForMessage = (msgId: string, timeout = 5000) =>
  vi.waitFor(
    async () => {
      const msg = (await readStream()).find((m) => m.headers?.get('Nats-Msg-Id') === msgId);
      if (!msg) throw new Error(`no message ${msgId} in the stream yet`);
      return msg;
    },
    { timeout, interval: 25 },
  );

const streamCount = async () => {
  const jsm = await bed.client.connection.jetstreamManager();
  return (await jsm.streams.info(bed.client.streamName)).state.messages;
};

const outboxRow = async (documentId: string) => {
  const result = await db.query<{ id: string; created_at: Date; published_at: Date | null }>(
    `select id, created_at, published_at from documents.outbox where payload->>'documentId' = $1`,
    [documentId],
  );
  return result.rows[0];
};

/** When the outbox row of this document was published, once it is. */
const publishedAt = (documentId: string) =>
  vi.waitFor(
    async () => {
      const at = (await outboxRow(documentId))?.published_at;
      if (!at) throw new Error(`the event of ${documentId} is not published yet`);
      return at;
    },
    { timeout: 5000, interval: 25 },
  );

// No timed polls at first: what gets published does so because a record woke the relay.
test.override('storeOptions', { label: 'outbox', config: { OUTBOX_POLL_MS: 3_600_000 }, logger });

test.beforeAll(({ bed: fileBed, db: fileDb, sut: fileSut }) => {
  bed = fileBed;
  db = fileDb;
  sut = fileSut;
});

afterAll(async () => {
  for (const store of started) await store.stop();
});

describe('outbox relay', () => {
  it('publishes events.document.signed to JetStream with the outbox id as the message id', async () => {
    const request = recordRequest({ signedAt: '2025-04-04T04:04:04.044Z' });
    const { id } = await bed.client.request(DocumentRecord, request);

    const row = await outboxRow(id);
    expect(row).toBeDefined();
    const msg = await waitForMessage(row?.id ?? '', 2000);
    expect(msg.subject).toBe(bed.client.wire(DocumentSigned.subject));
    expect(msg.json()).toEqual({
      documentId: id,
      accountId: request.accountId,
      auditId: request.auditId,
      fileHash: request.fileHash,
      signedAt: '2025-04-04T04:04:04.044Z',
      // What a webhook receiver is told; the event id is the outbox row's (and the Nats-Msg-Id).
      eventId: row?.id,
      fileName: request.fileName,
      signerName: request.signerName,
      signerEmail: request.signerEmail,
      objectKey: request.objectKey,
    });
    const published = await publishedAt(id);
    expect(published.getTime() - (row?.created_at.getTime() ?? 0)).toBeLessThan(1000);

    // A document made without a quota reservation: its event asks the key service to count it.
    const uncounted = await bed.client.request(DocumentRecord, {
      ...recordRequest(),
      countFromRecord: true,
    });
    const uncountedRow = await outboxRow(uncounted.id);
    const uncountedMsg = await waitForMessage(uncountedRow?.id ?? '', 2000);
    expect(uncountedMsg.json()).toMatchObject({ documentId: uncounted.id, countFromRecord: true });
  });

  it('does not duplicate an event that is published again', async () => {
    const { id } = await bed.client.request(DocumentRecord, recordRequest());
    await publishedAt(id);
    const before = await streamCount();

    // As if the relay had crashed after publishing but before its commit.
    await db.query(`update documents.outbox set published_at = null where payload->>'documentId' = $1`, [id]);
    const next = await bed.client.request(DocumentRecord, recordRequest());
    await publishedAt(next.id);
    expect((await outboxRow(id))?.published_at).toBeInstanceOf(Date);
    expect(await streamCount()).toBe(before + 1);
  });

  it('publishes rows left while the service was down once it starts again', async () => {
    await sut.stop();
    const outboxId = randomUUID();
    const documentId = randomUUID();
    const payload = {
      documentId,
      accountId: randomUUID(),
      auditId: newAuditId(),
      fileHash: `sha256:${sha256Hex(documentId)}`,
      signedAt: '2025-05-05T05:05:05.005Z',
    };
    await db.query(`insert into documents.outbox (id, subject, payload) values ($1, $2, $3)`, [
      outboxId,
      DocumentSigned.subject,
      JSON.stringify(payload),
    ]);
    // Stopped means no relay of this process polls any more (stop waited for its last pass).
    expect((await readStream()).some((m) => m.headers?.get('Nats-Msg-Id') === outboxId)).toBe(false);

    // Polls every 100 ms (the default is a second), so that the late row below is not waited for long.
    await start({ ...bed.config, OUTBOX_POLL_MS: 100 });
    const msg = await waitForMessage(outboxId);
    expect(msg.json()).toEqual(payload);
    expect((await outboxRow(documentId))?.published_at).toBeInstanceOf(Date);

    // A row nobody announces (another process wrote it) goes out on the next poll.
    const lateId = randomUUID();
    await db.query(`insert into documents.outbox (id, subject, payload) values ($1, $2, $3)`, [
      lateId,
      DocumentSigned.subject,
      JSON.stringify({ ...payload, documentId: randomUUID() }),
    ]);
    await waitForMessage(lateId, 2500);
  });

  it('sends each event once when two replicas share the outbox', async () => {
    const replica = await start(bed.config);
    try {
      const before = await streamCount();
      const ids = await Promise.all(
        Array.from(
          { length: 20 },
          async () => (await bed.client.request(DocumentRecord, recordRequest())).id,
        ),
      );
      for (const id of ids) await publishedAt(id);
      expect(await streamCount()).toBe(before + 20);
      const msgIds = (await readStream()).map((m) => m.headers?.get('Nats-Msg-Id'));
      expect(new Set(msgIds).size).toBe(msgIds.length);
    } finally {
      await replica.stop();
    }
  });

  it('leaves rows it cannot publish unpublished, logged, without blocking the rows behind them', async () => {
    const poisonId = randomUUID();
    const unknownId = randomUUID();
    await db.query(`insert into documents.outbox (id, subject, payload) values ($1, $2, $3), ($4, $5, $6)`, [
      poisonId,
      DocumentSigned.subject,
      JSON.stringify({ documentId: 'not-a-uuid' }),
      unknownId,
      'events.document.archived',
      JSON.stringify({}),
    ]);
    const { id } = await bed.client.request(DocumentRecord, recordRequest({ auditId: newAuditId() }));
    await publishedAt(id);
    const poison = await db.query<{ published_at: Date | null }>(
      'select published_at from documents.outbox where id = $1',
      [poisonId],
    );
    expect(poison.rows[0]?.published_at).toBeNull();
    const unknown = await db.query<{ published_at: Date | null }>(
      'select published_at from documents.outbox where id = $1',
      [unknownId],
    );
    expect(unknown.rows[0]?.published_at).toBeNull();
    const reports = logs.filter((line) => line.includes(poisonId));
    expect(reports).toHaveLength(1);
    expect(reports[0]).toContain('fails its contract');
  });
});
