import { randomUUID } from 'node:crypto';
import { DocumentRecord, DocumentSigned } from '@esign/contracts';
import { newAuditId } from '@esign/ids';
import type { JsMsg } from 'nats';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '@esign/telemetry';
import type { TDocumentStoreConfig } from '../src/config';
import { startDocumentStore, type DocumentStore } from '../src/start';
import { createTestBed, recordRequest, sha256Hex, waitFor, type TestBed } from './helpers';

let bed: TestBed;
let sut: DocumentStore | undefined;
let db: pg.Client;
const logs: string[] = [];
const start = (config: TDocumentStoreConfig) =>
  startDocumentStore(config, {
    logger: createLogger({ service: 'document-store', level: 'warn', write: (line) => void logs.push(line) }),
  });

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
const waitForMessage = (msgId: string, timeoutMs = 5000) =>
  waitFor(async () => (await readStream()).find((m) => m.headers?.get('Nats-Msg-Id') === msgId), timeoutMs);

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

beforeAll(async () => {
  bed = await createTestBed('outbox');
  // No timed polls at first: what gets published does so because a record woke the relay.
  sut = await start({ ...bed.config, OUTBOX_POLL_MS: 3_600_000 });
  db = new pg.Client({ connectionString: bed.database.url });
  await db.connect();
});

afterAll(async () => {
  await db?.end();
  await sut?.stop();
  await bed?.close();
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
    const published = await waitFor(async () => (await outboxRow(id))?.published_at ?? undefined);
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
    await waitFor(async () => (await outboxRow(id))?.published_at ?? undefined);
    const before = await streamCount();

    // As if the relay had crashed after publishing but before its commit.
    await db.query(`update documents.outbox set published_at = null where payload->>'documentId' = $1`, [id]);
    const next = await bed.client.request(DocumentRecord, recordRequest());
    await waitFor(async () => (await outboxRow(next.id))?.published_at ?? undefined);
    expect((await outboxRow(id))?.published_at).toBeInstanceOf(Date);
    expect(await streamCount()).toBe(before + 1);
  });

  it('publishes rows left while the service was down once it starts again', async () => {
    await sut?.stop();
    sut = undefined;
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
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await readStream()).some((m) => m.headers?.get('Nats-Msg-Id') === outboxId)).toBe(false);

    sut = await start(bed.config);
    const msg = await waitForMessage(outboxId);
    expect(msg.json()).toEqual(payload);
    expect((await outboxRow(documentId))?.published_at).toBeInstanceOf(Date);

    // A row nobody announces (another process wrote it) goes out on the next one-second poll.
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
      for (const id of ids) await waitFor(async () => (await outboxRow(id))?.published_at ?? undefined);
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
    await waitFor(async () => (await outboxRow(id))?.published_at ?? undefined);
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
