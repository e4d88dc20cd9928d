import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  DocumentRecord,
  EnvelopeAttachLink,
  EnvelopeCancel,
  EnvelopeDocument,
  EnvelopeGet,
  EnvelopeList,
  EnvelopeReplaceRecipient,
  EnvelopeResendRecipient,
  SigningAttachLink,
  SigningCancel,
  SigningCreate,
  SigningDecline,
  SigningRecordView,
  SigningRequested,
  SigningStatus,
  type TEnvelope,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import pg from 'pg';
import type { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { createEnvelopeSweep } from '../src/sweep/envelope-sweep';
import { createSigningSweep } from '../src/sweep/signing-sweep';
import { recordRequest, test, type TestBed } from './helpers';

/**
 * A send is a one-signer envelope: every change of the send (create, view, sign, decline, cancel,
 * expire) shows on its envelope within the same transaction (migration 0008's trigger), the envelope
 * reads like any other, and the envelope's writes act on the send or are refused.
 */

const DAY = 24 * 60 * 60 * 1000;
let bed: TestBed;
let db: pg.Client;
let pool: pg.Pool;
let clock = new Date('2027-02-01T09:00:00.000Z');

test.override('storeOptions', {
  label: 'sendenv',
  config: { SIGNING_SWEEP_INTERVAL_MS: 0 },
  now: () => clock,
});

test.beforeAll(({ bed: fileBed, db: fileDb }) => {
  bed = fileBed;
  db = fileDb;
  pool = new pg.Pool({ connectionString: bed.database.url, max: 2 });
});

afterAll(async () => {
  await pool?.end();
});

type TCreate = z.input<(typeof SigningCreate)['request']>;

const send = async (overrides: Partial<TCreate> = {}) => {
  const accountId = overrides.accountId ?? randomUUID();
  const request: TCreate = {
    accountId,
    senderEmail: 'sender@example.com',
    recipientEmail: 'rita@example.com',
    recipientName: 'Rita Recipient',
    fileName: 'lease.pdf',
    objectKey: `pending/${accountId}/${randomUUID()}.pdf`,
    positions: [
      { x: 10, y: 80, width: 30, page: 1 },
      { x: 55, y: 20, width: 20, page: 0 },
    ],
    pageCount: 2,
    ...overrides,
  };
  const created = await bed.client.request(SigningCreate, request);
  const envelopeId = `env_${created.sendId.slice('send_'.length)}`;
  const envelope = () => bed.client.request(EnvelopeGet, { accountId, envelopeId });
  return { request, created, accountId, envelopeId, envelope };
};

const attach = async (sendId: string) => {
  const token = randomBytes(32).toString('base64url');
  const tokenHash = createHash('sha256').update(token).digest('hex');
  await bed.client.request(SigningAttachLink, { sendId, eventId: randomUUID(), tokenHash, mode: 'replace' });
  return tokenHash;
};

const outboxOf = async (sendId: string, subject: string) => {
  const { rows } = await db.query<{ payload: Record<string, unknown> }>(
    `select payload from documents.outbox where payload->>'sendId' = $1 and subject = $2 order by created_at, id`,
    [sendId, subject],
  );
  return rows;
};

const recipientOf = (envelope: TEnvelope) => {
  const [recipient, ...others] = envelope.recipients;
  expect(others).toEqual([]);
  if (!recipient) throw new Error('no recipient');
  return recipient;
};

describe('a send is a one-signer envelope', () => {
  it('is created with the send: one signer in group 1, a signature field per position, listed with the others', async () => {
    clock = new Date('2027-02-01T09:00:00.000Z');
    const { created, accountId, envelopeId, envelope } = await send({
      subject: 'Please sign the lease',
      message: 'Hi Rita',
      expiresInDays: 7,
    });
    const view = await envelope();
    expect(view).toMatchObject({
      envelopeId,
      sendId: created.sendId,
      auditId: created.auditId,
      status: 'pending',
      subject: 'Please sign the lease',
      message: 'Hi Rita',
      fileName: 'lease.pdf',
      pageCount: 2,
      createdAt: created.sentAt,
      expiresAt: created.expiresAt,
      currentOrder: 1,
      revision: 0,
      fileHash: null,
    });
    expect(recipientOf(view)).toMatchObject({
      recipientId: `rcp_${created.sendId.slice('send_'.length)}`,
      name: 'Rita Recipient',
      email: 'rita@example.com',
      role: 'signer',
      order: 1,
      status: 'notified',
      notifiedAt: created.sentAt,
      viewedAt: null,
      actedAt: null,
      embedded: false,
      requireEmailCode: false,
      fields: [
        { type: 'signature', page: 1, x: 10, y: 80, width: 30, required: true },
        { type: 'signature', page: 0, x: 55, y: 20, width: 20, required: true },
      ],
    });
    const list = await bed.client.request(EnvelopeList, { accountId, limit: 10 });
    expect(list.envelopes.map((e) => e.envelopeId)).toEqual([envelopeId]);
    // While pending, the document as it stands is the send's original.
    const document = await bed.client.request(EnvelopeDocument, { accountId, envelopeId });
    expect(document).toMatchObject({ complete: false, signersDone: 0, signersTotal: 1, status: 'pending' });
    const { rows } = await db.query<{ objectKey: string }>(
      'select object_key as "objectKey" from documents.signing_requests where id = $1',
      [created.sendId],
    );
    expect(document.objectKey).toBe(rows[0]?.objectKey);
  });

  it('follows the send: viewed, then completed with the signed document’s hash and key', async () => {
    clock = new Date('2027-02-01T09:00:00.000Z');
    const { request, created, accountId, envelopeId, envelope } = await send();
    const tokenHash = await attach(created.sendId);
    clock = new Date('2027-02-01T10:00:00.000Z');
    await bed.client.request(SigningRecordView, { tokenHash, ipAddress: '203.0.113.9', userAgent: 'Phone' });
    expect(recipientOf(await envelope())).toMatchObject({
      status: 'viewed',
      viewedAt: '2027-02-01T10:00:00.000Z',
    });

    clock = new Date('2027-02-01T10:05:00.000Z');
    const record = recordRequest({
      accountId,
      auditId: created.auditId,
      fileName: 'lease.pdf',
      signerName: 'Rita Recipient',
      signerEmail: 'rita@example.com',
      signedAt: '2027-02-01T10:04:59.000Z',
      objectKey: `signed/${accountId}/${created.auditId}.pdf`,
      signingRequest: { sendId: created.sendId, tokenHash },
    });
    await bed.client.request(DocumentRecord, record);
    const done = await envelope();
    expect(done).toMatchObject({
      status: 'completed',
      completedAt: '2027-02-01T10:04:59.000Z',
      fileHash: record.fileHash,
      revision: 1,
      currentOrder: null,
    });
    expect(recipientOf(done)).toMatchObject({ status: 'signed', actedAt: '2027-02-01T10:04:59.000Z' });
    expect(await bed.client.request(EnvelopeDocument, { accountId, envelopeId })).toMatchObject({
      complete: true,
      objectKey: record.objectKey,
      signersDone: 1,
    });
    expect(request.recipientEmail).toBe('rita@example.com');
  });

  it('follows a decline, with its reason', async () => {
    clock = new Date('2027-02-01T09:00:00.000Z');
    const { created, accountId, envelopeId, envelope } = await send();
    const tokenHash = await attach(created.sendId);
    clock = new Date('2027-02-01T11:00:00.000Z');
    await bed.client.request(SigningDecline, {
      tokenHash,
      reason: 'Wrong amount',
      ipAddress: '203.0.113.9',
      userAgent: 'Phone',
    });
    const view = await envelope();
    expect(view).toMatchObject({
      status: 'declined',
      declinedAt: '2027-02-01T11:00:00.000Z',
      declineReason: 'Wrong amount',
    });
    expect(recipientOf(view)).toMatchObject({ status: 'declined', declineReason: 'Wrong amount' });
    // The send's original is not kept once it ended: the envelope's document says so (409).
    await expect(bed.client.request(EnvelopeDocument, { accountId, envelopeId })).rejects.toMatchObject({
      code: 'conflict',
      message: 'the send is declined: its document is no longer kept',
    });
  });

  it('cancels as the send does (signing.canceled), and a canceled send shows on its envelope', async () => {
    clock = new Date('2027-02-01T09:00:00.000Z');
    const { created, accountId, envelopeId, envelope } = await send();
    clock = new Date('2027-02-01T12:00:00.000Z');
    const canceled = await bed.client.request(EnvelopeCancel, { accountId, envelopeId });
    expect(canceled).toMatchObject({ status: 'canceled', canceledAt: '2027-02-01T12:00:00.000Z' });
    expect(await bed.client.request(SigningStatus, { accountId, id: created.sendId })).toMatchObject({
      status: 'canceled',
    });
    expect(await outboxOf(created.sendId, 'events.signing.canceled')).toHaveLength(1);
    // Canceled through the send, seen on the envelope; a second cancel is refused either way.
    await expect(bed.client.request(EnvelopeCancel, { accountId, envelopeId })).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(
      bed.client.request(SigningCancel, { accountId, sendId: created.sendId }),
    ).rejects.toMatchObject({ code: 'conflict' });
    expect((await envelope()).status).toBe('canceled');
    // Another account's key finds nothing.
    await expect(
      bed.client.request(EnvelopeCancel, { accountId: randomUUID(), envelopeId }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('resends as the send does; replace and an embedded link are refused', async () => {
    clock = new Date('2027-02-01T09:00:00.000Z');
    const { created, accountId, envelopeId, envelope } = await send();
    const { recipientId } = recipientOf(await envelope());
    await bed.client.request(EnvelopeResendRecipient, { accountId, envelopeId, recipientId });
    const requested = await outboxOf(created.sendId, SigningRequested.subject);
    expect(requested.map((e) => e.payload['resend'])).toEqual([false, true]);
    await expect(
      bed.client.request(EnvelopeResendRecipient, {
        accountId,
        envelopeId,
        recipientId: `rcp_${'x'.repeat(24)}`,
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      bed.client.request(EnvelopeReplaceRecipient, {
        accountId,
        envelopeId,
        recipientId,
        name: 'Sam Other',
        email: 'sam@example.com',
      }),
    ).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('cannot be replaced') as unknown,
    });
    await expect(
      bed.client.request(EnvelopeAttachLink, {
        recipientId,
        tokenHash: 'a'.repeat(64),
        mode: 'embedded',
      }),
    ).rejects.toMatchObject({ code: 'conflict' });
    expect(recipientOf(await envelope())).toMatchObject({ name: 'Rita Recipient', status: 'notified' });
  });

  it('expires with the send’s sweep; the envelope sweep leaves it to the send', async () => {
    const sentAt = new Date('2031-05-01T00:00:00.000Z');
    clock = sentAt;
    const { created, envelope } = await send({ expiresInDays: 3 });
    const logger = createLogger({ service: 'send-envelopes-test', level: 'error' });
    const after = new Date(sentAt.getTime() + 4 * DAY);
    const envelopeSweep = await createEnvelopeSweep({ pool, logger, batch: 500 }).runOnce(after);
    expect(JSON.stringify(envelopeSweep)).not.toContain(created.sendId.slice('send_'.length));
    const { rows } = await db.query<{ status: string }>(
      'select status from documents.envelopes where send_id = $1',
      [created.sendId],
    );
    expect(rows[0]?.status).toBe('pending');
    const signingSweep = await createSigningSweep({
      pool,
      logger,
      reminders: { intervalMs: DAY, max: 3 },
      batch: 500,
    }).runOnce(after);
    expect(signingSweep?.expired).toContain(created.sendId);
    clock = after;
    const view = await envelope();
    expect(view).toMatchObject({ status: 'expired', expiredAt: created.expiresAt });
    // The reminders the send's sweep sent before expiry count on the recipient.
    expect(recipientOf(view).status).toBe('notified');
    const { rows: counted } = await db.query<{ reminders: number }>(
      'select reminder_count as reminders from documents.signing_requests where id = $1',
      [created.sendId],
    );
    const { rows: mirrored } = await db.query<{ reminders: number }>(
      `select reminders_sent as reminders from documents.envelope_recipients
       where envelope_id = (select id from documents.envelopes where send_id = $1)`,
      [created.sendId],
    );
    expect(mirrored[0]?.reminders).toBe(counted[0]?.reminders);
  });

  it('gives a send made before the envelopes existed its envelope on its next change (the migration’s backfill)', async () => {
    clock = new Date('2027-02-01T09:00:00.000Z');
    const { created, envelope } = await send();
    await db.query('delete from documents.envelopes where send_id = $1', [created.sendId]);
    await expect(envelope()).rejects.toMatchObject({ code: 'not_found' });
    // What migration 0008 runs for every existing send.
    await db.query('update documents.signing_requests set status = status where id = $1', [created.sendId]);
    expect(await envelope()).toMatchObject({ sendId: created.sendId, status: 'pending' });
  });
});
