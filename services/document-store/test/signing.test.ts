import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { decodeJson, encodeJson, ZEnvelope } from '@esign/bus';
import {
  DocumentGet,
  DocumentRecord,
  SigningAttachLink,
  SigningCancel,
  SigningClaim,
  SigningCreate,
  SigningDecline,
  SigningFindByToken,
  SigningList,
  SigningRecordView,
  SigningRelease,
  SigningResend,
  SigningStatus,
  SigningCompleted,
  SigningRequested,
  ZSigningCompletedEvent,
  ZSigningRequestedEvent,
} from '@esign/contracts';
import { createBlobStore } from '@esign/blob';
import { createLogger } from '@esign/telemetry';
import { startTestS3 } from '@esign/testing';
import pg from 'pg';
import type { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { createSigningSweep } from '../src/sweep/signing-sweep';
import { recordRequest, test, verifyAuditChain, type TestBed } from './helpers';

const DAY = 24 * 60 * 60 * 1000;

let bed: TestBed;
let db: pg.Client;
let pool: pg.Pool;
/** The store's clock: each test sets it. */
let clock = new Date('2026-01-05T10:00:00.000Z');

// The sweep is run by hand, at chosen instants.
test.override('storeOptions', {
  label: 'signing',
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

const createRequest = (overrides: Partial<TCreate> = {}): TCreate => {
  const accountId = overrides.accountId ?? randomUUID();
  return {
    accountId,
    senderEmail: 'sender@example.com',
    recipientEmail: 'rita@example.com',
    recipientName: 'Rita Recipient',
    subject: 'Please sign: lease.pdf',
    message: 'Hi Rita, here is the lease.',
    fileName: 'lease.pdf',
    objectKey: `pending/${accountId}/${randomUUID()}.pdf`,
    positions: [{ x: 10, y: 80, width: 30, page: 1 }],
    pageCount: 2,
    ...overrides,
  };
};

const create = (overrides: Partial<TCreate> = {}) =>
  bed.client.request(SigningCreate, createRequest(overrides));

const newToken = () => {
  const token = randomBytes(32).toString('base64url');
  return { token, tokenHash: createHash('sha256').update(token).digest('hex') };
};

/** Attach a fresh link (as the mailer does) and answer its token and hash. */
const attach = async (sendId: string, mode: 'replace' | 'add' = 'replace') => {
  const link = newToken();
  await bed.client.request(SigningAttachLink, {
    sendId,
    eventId: randomUUID(),
    tokenHash: link.tokenHash,
    mode,
  });
  return link;
};

const outboxOf = async (sendId: string, subject?: string) => {
  const { rows } = await db.query<{ id: string; subject: string; payload: Record<string, unknown> }>(
    `select id, subject, payload from documents.outbox
     where payload->>'sendId' = $1 and ($2::text is null or subject = $2) order by created_at, id`,
    [sendId, subject ?? null],
  );
  return rows;
};

const storyOf = async (sendId: string) => {
  const { rows } = await db.query<{ event: string; details: Record<string, unknown> }>(
    'select event, details from documents.signing_events where send_id = $1 order by id',
    [sendId],
  );
  return rows;
};

/** Send a request as raw NATS, past the client's own validation. */
const raw = async (subject: string, body: unknown) => {
  const reply = await bed.client.connection.request(bed.client.wire(subject), encodeJson(body), {
    timeout: 5000,
  });
  return ZEnvelope.parse(decodeJson(reply.data));
};

const status = (accountId: string, id: string) => bed.client.request(SigningStatus, { accountId, id });

describe('signing.create', () => {
  it('creates a pending request with a reserved audit ID and publishes one requested event', async () => {
    clock = new Date('2026-01-05T10:00:00.000Z');
    const request = createRequest({ expiresInDays: 7 });
    const created = await bed.client.request(SigningCreate, request);
    expect(created).toEqual({
      sendId: expect.stringMatching(/^send_[A-Za-z0-9]{24}$/) as unknown,
      auditId: expect.stringMatching(/^ESG-/) as unknown,
      recipientEmail: 'rita@example.com',
      sentAt: '2026-01-05T10:00:00.000Z',
      status: 'pending',
      expiresAt: '2026-01-12T10:00:00.000Z',
      replayed: false,
    });
    const events = await outboxOf(created.sendId);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event?.subject).toBe(SigningRequested.subject);
    const payload = ZSigningRequestedEvent.parse(event?.payload);
    expect(payload).toMatchObject({
      eventId: event?.id,
      sendId: created.sendId,
      auditId: created.auditId,
      accountId: request.accountId,
      senderEmail: 'sender@example.com',
      subject: 'Please sign: lease.pdf',
      message: 'Hi Rita, here is the lease.',
      expiresAt: '2026-01-12T10:00:00.000Z',
      resend: false,
    });
    expect((await storyOf(created.sendId)).map((e) => e.event)).toEqual(['signing.sent']);
  });

  it('defaults to 30 days and to the subject `Please sign: <file name>`, and refuses an expiry outside 1-90 days', async () => {
    clock = new Date('2026-01-05T10:00:00.000Z');
    const created = await create({ message: undefined, subject: undefined, fileName: 'NDA 2026.pdf' });
    expect(created.expiresAt).toBe('2026-02-04T10:00:00.000Z');
    const [requested] = await outboxOf(created.sendId);
    expect(requested?.payload).toMatchObject({ subject: 'Please sign: NDA 2026.pdf', message: null });
    for (const expiresInDays of [0, 91]) {
      const reply = await raw(SigningCreate.subject, { ...createRequest(), expiresInDays });
      expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
    }
  });

  it('answers a replay of its Idempotency-Key with the same request and publishes nothing new', async () => {
    const idempotency = { key: `key-${randomUUID()}`, requestHash: 'a'.repeat(64) };
    const request = createRequest({ idempotency });
    const first = await bed.client.request(SigningCreate, request);
    const replays = await Promise.all([
      bed.client.request(SigningCreate, request),
      bed.client.request(SigningCreate, request),
    ]);
    expect(first.replayed).toBe(false);
    // A replay says so (the gateway then drops its copy of the original).
    for (const replay of replays) expect(replay).toEqual({ ...first, replayed: true });
    expect(await outboxOf(first.sendId)).toHaveLength(1);
    const { rows } = await db.query('select id from documents.signing_requests where account_id = $1', [
      request.accountId,
    ]);
    expect(rows).toHaveLength(1);

    await expect(
      bed.client.request(SigningCreate, {
        ...request,
        idempotency: { ...idempotency, requestHash: 'b'.repeat(64) },
      }),
    ).rejects.toMatchObject({ code: 'conflict', field: 'Idempotency-Key' });
  });

  it('refuses an original outside the account’s pending/ area', async () => {
    const request = createRequest();
    for (const objectKey of [
      `signed/${request.accountId}/ESG-AAAA-BBBB-CCCC.pdf`,
      `pending/${randomUUID()}/x.pdf`,
      `pending/${request.accountId}/../../signed/x.pdf`,
    ]) {
      await expect(bed.client.request(SigningCreate, { ...request, objectKey })).rejects.toMatchObject({
        code: 'invalid_argument',
        field: 'objectKey',
      });
    }
  });

  it('refuses a multi-line subject (header injection)', async () => {
    const reply = await raw(SigningCreate.subject, {
      ...createRequest(),
      subject: 'Hi\r\nBcc: x@example.com',
    });
    expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_argument' } });
  });
});

describe('signing.attach-link and signing.find-by-token', () => {
  it('replace revokes earlier links, add keeps them, and only hashes are stored', async () => {
    clock = new Date('2026-01-05T10:00:00.000Z');
    const created = await create();
    const first = await attach(created.sendId, 'replace');
    const reminder = await attach(created.sendId, 'add');
    for (const link of [first, reminder]) {
      const found = await bed.client.request(SigningFindByToken, { tokenHash: link.tokenHash });
      expect(found.sendId).toBe(created.sendId);
    }
    const resent = await attach(created.sendId, 'replace');
    for (const link of [first, reminder]) {
      await expect(
        bed.client.request(SigningFindByToken, { tokenHash: link.tokenHash }),
      ).rejects.toMatchObject({ code: 'not_found' });
    }
    const found = await bed.client.request(SigningFindByToken, { tokenHash: resent.tokenHash });
    expect(found).toEqual({
      sendId: created.sendId,
      auditId: created.auditId,
      accountId: expect.any(String) as unknown,
      status: 'pending',
      recipientName: 'Rita Recipient',
      recipientEmail: 'rita@example.com',
      senderEmail: 'sender@example.com',
      message: 'Hi Rita, here is the lease.',
      fileName: 'lease.pdf',
      positions: [{ x: 10, y: 80, width: 30, page: 1 }],
      objectKey: expect.stringMatching(/^pending\//) as unknown,
      pageCount: 2,
      expiresAt: created.expiresAt,
      viewedAt: null,
    });
    const story = await storyOf(created.sendId);
    expect(story.map((e) => e.event)).toEqual([
      'signing.sent',
      'signing.emailed',
      'signing.emailed',
      'signing.emailed',
    ]);
    expect(story[2]?.details).toMatchObject({ mode: 'add' });
  });

  it('answers not_found for an unknown request or token, and conflict once the request is not pending', async () => {
    clock = new Date('2026-01-05T10:00:00.000Z');
    await expect(
      bed.client.request(SigningAttachLink, {
        sendId: 'send_AAAAAAAAAAAAAAAAAAAAAAAA',
        eventId: randomUUID(),
        tokenHash: newToken().tokenHash,
        mode: 'replace',
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      bed.client.request(SigningFindByToken, { tokenHash: newToken().tokenHash }),
    ).rejects.toMatchObject({ code: 'not_found' });

    const request = createRequest();
    const created = await bed.client.request(SigningCreate, request);
    const link = await attach(created.sendId);
    await bed.client.request(SigningCancel, { accountId: request.accountId, sendId: created.sendId });
    await expect(attach(created.sendId, 'add')).rejects.toMatchObject({ code: 'conflict' });
    // The used link is still found, with its final state (the page answers 410).
    const found = await bed.client.request(SigningFindByToken, { tokenHash: link.tokenHash });
    expect(found.status).toBe('canceled');
  });

  it('reads a pending request past its expiry as expired and refuses new links', async () => {
    clock = new Date('2026-01-05T10:00:00.000Z');
    const created = await create({ expiresInDays: 1 });
    const link = await attach(created.sendId);
    clock = new Date('2026-01-06T10:00:00.000Z');
    const found = await bed.client.request(SigningFindByToken, { tokenHash: link.tokenHash });
    expect(found.status).toBe('expired');
    await expect(attach(created.sendId, 'add')).rejects.toMatchObject({ code: 'conflict' });
    await expect(
      bed.client.request(SigningRecordView, {
        tokenHash: link.tokenHash,
        ipAddress: '203.0.113.9',
        userAgent: 'x',
      }),
    ).rejects.toMatchObject({ code: 'conflict' });
  });
});

describe('signing.record-view', () => {
  it('keeps the first viewedAt, logs every view and publishes viewed once', async () => {
    clock = new Date('2026-01-05T10:00:00.000Z');
    const request = createRequest();
    const created = await bed.client.request(SigningCreate, request);
    const link = await attach(created.sendId);
    expect(await status(request.accountId, created.auditId)).toEqual({
      auditId: created.auditId,
      status: 'pending',
      signerName: 'Rita Recipient',
      signerEmail: 'rita@example.com',
      viewedAt: null,
    });
    clock = new Date('2026-01-05T11:00:00.000Z');
    const first = await bed.client.request(SigningRecordView, {
      tokenHash: link.tokenHash,
      ipAddress: '203.0.113.9',
      userAgent: 'Phone Browser 1.0',
    });
    expect(first).toEqual({ sendId: created.sendId, viewedAt: '2026-01-05T11:00:00.000Z', firstView: true });
    clock = new Date('2026-01-05T12:00:00.000Z');
    const second = await bed.client.request(SigningRecordView, {
      tokenHash: link.tokenHash,
      ipAddress: '198.51.100.4',
      userAgent: 'Desktop Browser 2.0',
    });
    expect(second).toEqual({
      sendId: created.sendId,
      viewedAt: '2026-01-05T11:00:00.000Z',
      firstView: false,
    });
    expect(await status(request.accountId, created.sendId)).toMatchObject({
      status: 'pending',
      viewedAt: '2026-01-05T11:00:00.000Z',
    });
    const views = (await storyOf(created.sendId)).filter((e) => e.event === 'signing.viewed');
    expect(views.map((v) => v.details)).toEqual([
      { ipAddress: '203.0.113.9', userAgent: 'Phone Browser 1.0', firstView: true },
      { ipAddress: '198.51.100.4', userAgent: 'Desktop Browser 2.0', firstView: false },
    ]);
    expect(await outboxOf(created.sendId, 'events.signing.viewed')).toHaveLength(1);
  });
});

describe('completing a request through document.record', () => {
  const setUp = async () => {
    clock = new Date('2026-01-05T10:00:00.000Z');
    const request = createRequest();
    const created = await bed.client.request(SigningCreate, request);
    const link = await attach(created.sendId);
    clock = new Date('2026-01-05T11:00:00.000Z');
    await bed.client.request(SigningRecordView, {
      tokenHash: link.tokenHash,
      ipAddress: '203.0.113.9',
      userAgent: 'Phone',
    });
    clock = new Date('2026-01-05T11:05:00.000Z');
    const record = recordRequest({
      accountId: request.accountId,
      auditId: created.auditId,
      fileName: 'lease.pdf',
      signerName: 'Rita Recipient',
      signerEmail: 'rita@example.com',
      ipAddress: '203.0.113.9',
      userAgent: 'Phone',
      signedAt: '2026-01-05T11:04:59.000Z',
      objectKey: `signed/${request.accountId}/${created.auditId}.pdf`,
      size: 4321,
      events: [
        { event: 'document.signed', timestamp: '2026-01-05T11:04:59.000Z', details: { mode: 'draw' } },
      ],
      signingRequest: { sendId: created.sendId, tokenHash: link.tokenHash },
    });
    return { request, created, link, record };
  };

  it('records the document with the request story at the head of its audit log and marks it signed', async () => {
    const { request, created, link, record } = await setUp();
    await bed.client.request(DocumentRecord, record);

    const document = await bed.client.request(DocumentGet, {
      accountId: request.accountId,
      auditId: created.auditId,
    });
    expect(document.auditLog.map((e) => e.event)).toEqual([
      'signing.sent',
      'signing.emailed',
      'signing.viewed',
      'document.signed',
      'document.recorded',
    ]);
    expect(document.auditLog[2]?.details).toMatchObject({ ipAddress: '203.0.113.9', userAgent: 'Phone' });
    expect(verifyAuditChain(created.auditId, document.auditLog)).toEqual([]);

    expect(await status(request.accountId, created.auditId)).toEqual({
      auditId: created.auditId,
      status: 'signed',
      signerName: 'Rita Recipient',
      signerEmail: 'rita@example.com',
      signedAt: '2026-01-05T11:04:59.000Z',
      fileHash: record.fileHash,
    });
    const completed = await outboxOf(created.sendId, SigningCompleted.subject);
    expect(completed).toHaveLength(1);
    expect(ZSigningCompletedEvent.parse(completed[0]?.payload)).toMatchObject({
      eventId: completed[0]?.id,
      objectKey: record.objectKey,
      size: 4321,
      fileHash: record.fileHash,
      signedAt: '2026-01-05T11:04:59.000Z',
    });
    // The used link is found as signed (410 on the page) and signs nothing more.
    const found = await bed.client.request(SigningFindByToken, { tokenHash: link.tokenHash });
    expect(found.status).toBe('signed');
    await expect(
      bed.client.request(DocumentRecord, { ...record, auditId: created.auditId }),
    ).rejects.toMatchObject({ code: 'conflict' });
    await expect(
      bed.client.request(SigningDecline, {
        tokenHash: link.tokenHash,
        reason: 'late',
        ipAddress: '',
        userAgent: '',
      }),
    ).rejects.toMatchObject({ code: 'conflict' });
  });

  it('signs once when two submits race', async () => {
    const { request, created, record } = await setUp();
    const results = await Promise.allSettled([
      bed.client.request(DocumentRecord, record),
      bed.client.request(DocumentRecord, { ...record, fileHash: `sha256:${'c'.repeat(64)}` }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const { rows } = await db.query('select id from documents.documents where account_id = $1', [
      request.accountId,
    ]);
    expect(rows).toHaveLength(1);
    expect(await outboxOf(created.sendId, SigningCompleted.subject)).toHaveLength(1);
  });

  it('lets one submit claim the request before signing; a second is refused until released or lapsed', async () => {
    const { created, link, record } = await setUp();
    const claims = await Promise.allSettled([
      bed.client.request(SigningClaim, { tokenHash: link.tokenHash }),
      bed.client.request(SigningClaim, { tokenHash: link.tokenHash }),
    ]);
    expect(claims.map((c) => c.status).sort()).toEqual(['fulfilled', 'rejected']);
    const held = claims.find((c) => c.status === 'fulfilled');
    expect(held?.status === 'fulfilled' ? held.value : undefined).toEqual({
      sendId: created.sendId,
      auditId: created.auditId,
      claimedUntil: '2026-01-05T11:07:00.000Z',
    });
    const refused = claims.find((c) => c.status === 'rejected');
    expect(refused?.status === 'rejected' ? refused.reason : undefined).toMatchObject({ code: 'conflict' });

    // The sign workflow failed: released, the recipient can try again at once.
    await bed.client.request(SigningRelease, { tokenHash: link.tokenHash });
    await bed.client.request(SigningClaim, { tokenHash: link.tokenHash });
    // A claim lapses by itself (a gateway that died mid-sign).
    clock = new Date('2026-01-05T11:07:00.000Z');
    await bed.client.request(SigningClaim, { tokenHash: link.tokenHash });
    await bed.client.request(DocumentRecord, record);
    await expect(bed.client.request(SigningClaim, { tokenHash: link.tokenHash })).rejects.toMatchObject({
      code: 'conflict',
      message: 'the signing request is signed',
    });
  });

  it('refuses a document that is not the request’s own, writing nothing', async () => {
    const { request, created, record } = await setUp();
    await expect(
      bed.client.request(DocumentRecord, { ...record, accountId: randomUUID() }),
    ).rejects.toMatchObject({ code: 'invalid_argument', field: 'signingRequest' });
    await expect(
      bed.client.request(DocumentRecord, {
        ...record,
        signingRequest: { sendId: created.sendId, tokenHash: newToken().tokenHash },
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect((await status(request.accountId, created.sendId)).status).toBe('pending');
    const { rows } = await db.query('select id from documents.documents where audit_id = $1', [
      created.auditId,
    ]);
    expect(rows).toHaveLength(0);
  });
});

describe('signing.decline, signing.cancel, signing.resend, signing.status', () => {
  it('declines with a required reason', async () => {
    clock = new Date('2026-01-05T10:00:00.000Z');
    const request = createRequest();
    const created = await bed.client.request(SigningCreate, request);
    const link = await attach(created.sendId);
    for (const reason of ['', '   ', 'x'.repeat(1001)]) {
      const reply = await raw(SigningDecline.subject, {
        tokenHash: link.tokenHash,
        reason,
        ipAddress: '',
        userAgent: '',
      });
      expect(reply).toMatchObject({ ok: false, error: { code: 'invalid_argument', field: 'reason' } });
    }
    clock = new Date('2026-01-06T09:00:00.000Z');
    const declined = await bed.client.request(SigningDecline, {
      tokenHash: link.tokenHash,
      reason: 'The rent is wrong.',
      ipAddress: '203.0.113.9',
      userAgent: 'Phone',
    });
    expect(declined).toEqual({
      sendId: created.sendId,
      status: 'declined',
      declinedAt: '2026-01-06T09:00:00.000Z',
    });
    expect(await status(request.accountId, created.auditId)).toEqual({
      auditId: created.auditId,
      status: 'declined',
      declinedAt: '2026-01-06T09:00:00.000Z',
      declineReason: 'The rent is wrong.',
    });
    const events = await outboxOf(created.sendId, 'events.signing.declined');
    expect(events.map((e) => e.payload['reason'])).toEqual(['The rent is wrong.']);
    expect((await storyOf(created.sendId)).at(-1)).toEqual({
      event: 'signing.declined',
      details: { reason: 'The rent is wrong.', ipAddress: '203.0.113.9', userAgent: 'Phone' },
    });
    await expect(
      bed.client.request(SigningDecline, {
        tokenHash: link.tokenHash,
        reason: 'again',
        ipAddress: '',
        userAgent: '',
      }),
    ).rejects.toMatchObject({ code: 'conflict' });
  });

  it('cancels a pending request of the account only', async () => {
    clock = new Date('2026-01-05T10:00:00.000Z');
    const request = createRequest();
    const created = await bed.client.request(SigningCreate, request);
    await expect(
      bed.client.request(SigningCancel, { accountId: randomUUID(), sendId: created.sendId }),
    ).rejects.toMatchObject({ code: 'not_found' });
    clock = new Date('2026-01-05T12:00:00.000Z');
    expect(
      await bed.client.request(SigningCancel, { accountId: request.accountId, sendId: created.sendId }),
    ).toEqual({
      sendId: created.sendId,
      status: 'canceled',
      canceledAt: '2026-01-05T12:00:00.000Z',
    });
    expect(await status(request.accountId, created.sendId)).toEqual({
      auditId: created.auditId,
      status: 'canceled',
      canceledAt: '2026-01-05T12:00:00.000Z',
    });
    expect(await outboxOf(created.sendId, 'events.signing.canceled')).toHaveLength(1);
    await expect(
      bed.client.request(SigningCancel, { accountId: request.accountId, sendId: created.sendId }),
    ).rejects.toMatchObject({ code: 'conflict' });
    await expect(
      bed.client.request(SigningResend, { accountId: request.accountId, sendId: created.sendId }),
    ).rejects.toMatchObject({ code: 'conflict' });
  });

  it('resends: requested again with resend true, same expiry', async () => {
    clock = new Date('2026-01-05T10:00:00.000Z');
    const request = createRequest();
    const created = await bed.client.request(SigningCreate, request);
    clock = new Date('2026-01-07T10:00:00.000Z');
    const resent = await bed.client.request(SigningResend, {
      accountId: request.accountId,
      sendId: created.sendId,
    });
    expect(resent).toEqual({ sendId: created.sendId, status: 'pending', expiresAt: created.expiresAt });
    const requested = await outboxOf(created.sendId, SigningRequested.subject);
    expect(requested.map((e) => e.payload['resend'])).toEqual([false, true]);
    expect(requested[1]?.payload).toMatchObject({
      requestedAt: '2026-01-07T10:00:00.000Z',
      expiresAt: created.expiresAt,
    });
    await expect(
      bed.client.request(SigningResend, { accountId: randomUUID(), sendId: created.sendId }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('answers not_found for another account’s request and for unknown IDs', async () => {
    const request = createRequest();
    const created = await bed.client.request(SigningCreate, request);
    for (const id of [created.auditId, created.sendId]) {
      await expect(status(randomUUID(), id)).rejects.toMatchObject({ code: 'not_found' });
    }
    for (const id of ['ESG-AAAA-BBBB-CCCC', 'send_AAAAAAAAAAAAAAAAAAAAAAAA', 'nonsense']) {
      await expect(status(request.accountId, id)).rejects.toMatchObject({ code: 'not_found' });
    }
  });
});

describe('the signing sweep: expiry and reminders', () => {
  const sweep = () =>
    createSigningSweep({
      pool,
      logger: createLogger({ service: 'signing-sweep-test', level: 'error' }),
      reminders: { intervalMs: 3 * DAY, max: 3 },
      batch: 500,
    });
  const mine = (sendId: string, result: Awaited<ReturnType<ReturnType<typeof sweep>['runOnce']>>) => ({
    reminded: result?.reminded.filter((r) => r.sendId === sendId).map((r) => r.reminderNumber),
    expired: result?.expired.includes(sendId),
  });

  it('reminds 3 days after sending, collapses missed reminders into one, stops at 3, then expires', async () => {
    const sentAt = new Date('2030-01-01T00:00:00.000Z');
    clock = sentAt;
    const request = createRequest({ expiresInDays: 30 });
    const created = await bed.client.request(SigningCreate, request);
    const at = (days: number) => new Date(sentAt.getTime() + days * DAY);
    const sut = sweep();
    expect(mine(created.sendId, await sut.runOnce(at(2.9)))).toEqual({ reminded: [], expired: false });
    expect(mine(created.sendId, await sut.runOnce(at(3)))).toEqual({ reminded: [1], expired: false });
    expect(mine(created.sendId, await sut.runOnce(at(3.5)))).toEqual({ reminded: [], expired: false });
    // Down from day 3.5 to day 10: reminders 2 and 3 were missed; one reminder (number 3) goes out.
    expect(mine(created.sendId, await sut.runOnce(at(10)))).toEqual({ reminded: [3], expired: false });
    expect(mine(created.sendId, await sut.runOnce(at(20)))).toEqual({ reminded: [], expired: false });
    expect(mine(created.sendId, await sut.runOnce(at(30)))).toEqual({ reminded: [], expired: true });
    expect(mine(created.sendId, await sut.runOnce(at(31)))).toEqual({ reminded: [], expired: false });

    const reminders = await outboxOf(created.sendId, 'events.signing.reminder-due');
    expect(reminders.map((e) => e.payload['reminderNumber'])).toEqual([1, 3]);
    const expired = await outboxOf(created.sendId, 'events.signing.expired');
    expect(expired.map((e) => e.payload['expiredAt'])).toEqual([created.expiresAt]);
    clock = at(31);
    expect(await status(request.accountId, created.sendId)).toEqual({
      auditId: created.auditId,
      status: 'expired',
      expiredAt: created.expiresAt,
    });
  });

  it('never reminds at or after expiry', async () => {
    const sentAt = new Date('2031-01-01T00:00:00.000Z');
    clock = sentAt;
    const created = await create({ expiresInDays: 3 });
    const sut = sweep();
    const result = await sut.runOnce(new Date(sentAt.getTime() + 3 * DAY));
    expect(mine(created.sendId, result)).toEqual({ reminded: [], expired: true });
    expect(await outboxOf(created.sendId, 'events.signing.reminder-due')).toHaveLength(0);
  });

  it('removes the originals of ended requests and keeps those of pending ones', async () => {
    const s3 = await startTestS3();
    try {
      const blob = createBlobStore({ ...s3, bucket: 'signing-sweep' });
      await blob.ensureBucket();
      clock = new Date('2026-01-05T10:00:00.000Z');
      const ended = createRequest();
      const pending = createRequest();
      const endedReply = await bed.client.request(SigningCreate, ended);
      await bed.client.request(SigningCreate, pending);
      for (const r of [ended, pending]) await blob.put(r.objectKey, Buffer.from('%PDF-1.7 original'));
      await bed.client.request(SigningCancel, { accountId: ended.accountId, sendId: endedReply.sendId });

      const result = await createSigningSweep({
        pool,
        blob,
        logger: createLogger({ service: 'signing-sweep-test', level: 'error' }),
        reminders: { intervalMs: 3 * DAY, max: 3 },
        batch: 10_000,
      }).runOnce(new Date('2026-01-05T11:00:00.000Z'));
      expect(result?.originalsRemoved).toContain(endedReply.sendId);
      expect(await blob.stat(ended.objectKey)).toBeUndefined();
      expect(await blob.stat(pending.objectKey)).toBeDefined();
    } finally {
      await s3.stop();
    }
  });

  it('lets one replica sweep at a time', async () => {
    const holder = await pool.connect();
    try {
      await holder.query("select pg_advisory_lock(hashtext('documents:signing-sweep'))");
      expect(await sweep().runOnce(new Date('2032-01-01T00:00:00.000Z'))).toBeUndefined();
      await holder.query("select pg_advisory_unlock(hashtext('documents:signing-sweep'))");
    } finally {
      holder.release();
    }
  });
});

describe('tokens', () => {
  it('appear in no table and no event: only their SHA-256', async () => {
    clock = new Date('2026-01-05T10:00:00.000Z');
    const request = createRequest();
    const created = await bed.client.request(SigningCreate, request);
    const links = [await attach(created.sendId), await attach(created.sendId, 'add')];
    await bed.client.request(SigningRecordView, {
      tokenHash: links[1]?.tokenHash ?? '',
      ipAddress: '203.0.113.9',
      userAgent: 'x',
    });
    await bed.client.request(SigningDecline, {
      tokenHash: links[0]?.tokenHash ?? '',
      reason: 'no',
      ipAddress: '',
      userAgent: '',
    });
    const { rows: tables } = await db.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'documents'",
    );
    let stored = '';
    for (const { table_name } of tables) {
      const { rows } = await db.query<{ row: string }>(
        `select row_to_json(t)::text as row from documents.${pg.escapeIdentifier(table_name)} t`,
      );
      stored += rows.map((r) => r.row).join('\n');
    }
    for (const link of links) {
      expect(stored).toContain(link.tokenHash);
      expect(stored).not.toContain(link.token);
      // Nor its hex or base64 forms.
      expect(stored).not.toContain(Buffer.from(link.token, 'base64url').toString('hex'));
    }
    // The outbox rows are what the relay publishes: no token hash either.
    const events = JSON.stringify(await outboxOf(created.sendId));
    for (const link of links) expect(events).not.toContain(link.tokenHash);
  });

  it('every signing event the outbox holds passes its contract and reaches the stream', async () => {
    // The relay leaves a row that fails its contract unpublished: all must be published.
    await expect
      .poll(
        async () =>
          (
            await db.query<{ n: number }>(
              "select count(*)::int as n from documents.outbox where subject like 'events.signing.%' and published_at is null",
            )
          ).rows[0]?.n,
        { timeout: 10_000 },
      )
      .toBe(0);
    const { rows } = await db.query<{ subject: string }>(
      "select distinct subject from documents.outbox where subject like 'events.signing.%' order by subject",
    );
    expect(rows.map((r) => r.subject)).toEqual([
      'events.signing.canceled',
      'events.signing.completed',
      'events.signing.declined',
      'events.signing.expired',
      'events.signing.reminder-due',
      'events.signing.requested',
      'events.signing.viewed',
    ]);
  });

  it('lists an account’s requests newest first, a page at a time, with the status signing.status gives', async () => {
    const accountId = randomUUID();
    clock = new Date('2026-03-01T10:00:00.000Z');
    const first = await create({ accountId, fileName: 'one.pdf', expiresInDays: 1 });
    clock = new Date('2026-03-01T10:01:00.000Z');
    const second = await create({ accountId, fileName: 'two.pdf' });
    clock = new Date('2026-03-01T10:02:00.000Z');
    const third = await create({ accountId, fileName: 'three.pdf', recipientName: 'Third' });
    clock = new Date('2026-03-01T11:00:00.000Z');
    await bed.client.request(SigningCancel, { accountId, sendId: second.sendId });
    // Two days on: the first is past its expiry (not yet swept), the third still pending.
    clock = new Date('2026-03-03T10:00:00.000Z');
    const page1 = await bed.client.request(SigningList, { accountId, page: 1, limit: 2 });
    expect(page1).toMatchObject({ total: 3, page: 1, pages: 2 });
    expect(page1.requests.map((r) => [r.sendId, r.status, r.endedAt])).toEqual([
      [third.sendId, 'pending', null],
      [second.sendId, 'canceled', '2026-03-01T11:00:00.000Z'],
    ]);
    expect(page1.requests[0]).toMatchObject({
      auditId: third.auditId,
      fileName: 'three.pdf',
      recipientName: 'Third',
      recipientEmail: 'rita@example.com',
      subject: 'Please sign: lease.pdf',
      sentAt: '2026-03-01T10:02:00.000Z',
      viewedAt: null,
      declineReason: null,
    });
    const page2 = await bed.client.request(SigningList, { accountId, page: 2, limit: 2 });
    expect(page2.requests.map((r) => [r.sendId, r.status, r.endedAt])).toEqual([
      [first.sendId, 'expired', '2026-03-02T10:00:00.000Z'],
    ]);
    expect(await bed.client.request(SigningList, { accountId: randomUUID(), page: 1, limit: 20 })).toEqual({
      requests: [],
      total: 0,
      page: 1,
      pages: 0,
    });
  });
});
