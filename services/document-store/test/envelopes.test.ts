import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { endpoint, type Bus } from '@esign/bus';
import type { BlobStore } from '@esign/blob';
import {
  DocumentGet,
  DocumentList,
  EnvelopeApprove,
  EnvelopeAttachLink,
  EnvelopeCancel,
  EnvelopeClaim,
  EnvelopeCreate,
  EnvelopeDecline,
  EnvelopeDocument,
  EnvelopeFinalizeDue,
  EnvelopeFindByToken,
  EnvelopeGet,
  EnvelopeList,
  EnvelopeRecordRevision,
  EnvelopeRecordView,
  EnvelopeRelease,
  PdfPrepareEnvelope,
  ServiceError,
  type TEnvelope,
} from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import pg from 'pg';
import type { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { startDocumentStore } from '../src/start';
import { createEnvelopeSweep } from '../src/sweep/envelope-sweep';
import { completeEnvelopeStandIn, servePdfSigner, test, verifyAuditChain, type TestBed } from './helpers';

const DAY = 24 * 60 * 60 * 1000;

let bed: TestBed;
let db: pg.Client;
let pool: pg.Pool;
let blob: BlobStore;
/** The store's clock: each test sets it. */
let clock = new Date('2026-03-02T09:00:00.000Z');

// The sweep is run by hand, at chosen instants.
test.override('storeOptions', {
  label: 'envelopes',
  config: { SIGNING_SWEEP_INTERVAL_MS: 0, OUTBOX_POLL_MS: 100 },
  now: () => clock,
});

test.beforeAll(({ bed: fileBed, db: fileDb }) => {
  bed = fileBed;
  db = fileDb;
  pool = new pg.Pool({ connectionString: bed.database.url, max: 2 });
});

// The store's own object storage: the stand-ins write where it reads and copies.
test.beforeAll(({ objects }) => {
  blob = objects.blob;
});

afterAll(async () => {
  await pool?.end();
});

/** Two `race.pdf` preparations wait for each other: both requests get past the idempotency check. */
let racers: (() => void)[] = [];
const raceBarrier = () =>
  new Promise<void>((resolve) => {
    racers.push(resolve);
    if (racers.length === 2) {
      for (const go of racers) go();
      racers = [];
    }
  });

/** Every object key under `prefix`, sorted. */
const keysUnder = async (prefix: string) =>
  (await blob.listObjects(prefix, { limit: 100 })).map((o) => o.key).sort();

/** What envelope.create asked pdf-signer's pdf.prepare-envelope, by envelope. */
const prepared = new Map<string, z.infer<(typeof PdfPrepareEnvelope)['request']>>();
let preparer: Bus | undefined;
test.beforeAll(async ({ bed: fileBed }) => {
  // pdf-signer's pdf.prepare-envelope, as document-store sees it: the original copied to the target
  // (revision 0); a file named refused.pdf is refused as pdf-signer refuses a damaged signed document.
  const { connectBus } = await import('@esign/bus');
  preparer = await connectBus({
    url: fileBed.config.NATS_URL,
    name: 'pdf-signer-prepare',
    prefix: fileBed.config.BUS_PREFIX,
    logger: createLogger({ service: 'test', level: 'error' }),
    timeoutMs: 5000,
  });
  await preparer.serve([
    endpoint(PdfPrepareEnvelope, async (request) => {
      if (request.fileName === 'refused.pdf')
        throw new ServiceError('invalid_argument', 'file: the signed document is damaged', 'file');
      prepared.set(request.envelopeId, request);
      if (request.fileName === 'race.pdf') await raceBarrier();
      // Requests made straight on the bus have no original uploaded: an empty revision 0 stands in.
      if (await blob.stat(request.sourceKey)) await blob.copy(request.sourceKey, request.targetKey);
      else await blob.put(request.targetKey, Buffer.from('%PDF-1.7 revision 0'));
      const bytes = await blob.getBuffer(request.targetKey);
      return {
        objectKey: request.targetKey,
        fileHash: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
        size: bytes.length,
        pageCount: 3,
        certificatePages: 1,
        events: [],
      };
    }),
  ]);
});
afterAll(async () => {
  await preparer?.drain();
});

type TCreate = z.input<(typeof EnvelopeCreate)['request']>;
type TRecipientInput = TCreate['recipients'][number];

const signatureField = { type: 'signature' as const, page: 0, x: 10, y: 70, width: 30 };
const signer = (name: string, order = 1, extra: Partial<TRecipientInput> = {}): TRecipientInput => ({
  name,
  email: `${name.toLowerCase()}@example.com`,
  role: 'signer',
  order,
  fields: [signatureField],
  ...extra,
});
const approver = (name: string, order = 1): TRecipientInput => ({
  name,
  email: `${name.toLowerCase()}@example.com`,
  role: 'approver',
  order,
});
const cc = (name: string, order = 1): TRecipientInput => ({
  name,
  email: `${name.toLowerCase()}@example.com`,
  role: 'cc',
  order,
});

const createRequest = (recipients: TRecipientInput[], overrides: Partial<TCreate> = {}): TCreate => {
  const accountId = overrides.accountId ?? randomUUID();
  return {
    accountId,
    senderEmail: 'sender@example.com',
    fileName: 'lease.pdf',
    objectKey: `pending/${accountId}/${randomUUID()}.pdf`,
    originalHash: `sha256:${createHash('sha256').update(randomUUID()).digest('hex')}`,
    pageCount: 2,
    recipients,
    ...overrides,
  };
};

/** Create an envelope, its original uploaded first (as the gateway does). */
const create = async (recipients: TRecipientInput[], overrides: Partial<TCreate> = {}) => {
  const request = createRequest(recipients, overrides);
  await blob.put(request.objectKey, Buffer.from(`%PDF-1.7 original ${randomUUID()}`));
  return bed.client.request(EnvelopeCreate, request);
};

const newToken = () => createHash('sha256').update(randomBytes(32)).digest('hex');

/** Attach a fresh link to a recipient (as the mailer does) and answer its token hash. */
const linkOf = async (recipientId: string, mode: 'replace' | 'add' | 'embedded' = 'replace') => {
  const tokenHash = newToken();
  await bed.client.request(EnvelopeAttachLink, {
    recipientId,
    tokenHash,
    mode,
    ...(mode === 'embedded' ? {} : { eventId: randomUUID() }),
  });
  return tokenHash;
};

const recipientId = (envelope: TEnvelope, name: string): string => {
  const found = envelope.recipients.find((r) => r.name === name);
  if (!found) throw new Error(`no recipient ${name}`);
  return found.recipientId;
};

const outboxOf = async (envelopeId: string, subject?: string) => {
  const { rows } = await db.query<{ id: string; subject: string; payload: Record<string, unknown> }>(
    `select id, subject, payload from documents.outbox
     where payload->>'envelopeId' = $1 and ($2::text is null or subject = $2) order by created_at, id`,
    [envelopeId, subject ?? null],
  );
  return rows;
};

/** Who was given a turn, by name in alphabetical order (rows of one transaction share a time). */
const turnsOf = async (envelopeId: string) =>
  (await outboxOf(envelopeId, 'events.envelope.recipient-turn'))
    .map((row) => (row.payload.recipient as { name: string }).name)
    .sort();

const act = { ipAddress: '203.0.113.9', userAgent: 'vitest' };

/** Claim (waiting while another signer holds the head), then record a revision as the gateway would. */
const sign = async (tokenHash: string) => {
  for (;;) {
    const claim = await bed.client.request(EnvelopeClaim, { tokenHash });
    if (claim.outcome === 'busy') {
      await sleep(claim.retryAfterMs / 10);
      continue;
    }
    const objectKey = `revisions/${claim.accountId}/${claim.envelopeId}-${claim.revision + 1}.pdf`;
    const bytes = Buffer.from(`%PDF-1.7 revision ${claim.revision + 1} ${randomUUID()}`);
    await blob.put(objectKey, bytes);
    return bed.client.request(EnvelopeRecordRevision, {
      tokenHash,
      ...act,
      revision: claim.revision,
      objectKey,
      fileHash: `sha256:${createHash('sha256').update(bytes).digest('hex')}`,
      size: bytes.length,
      signedAt: clock.toISOString(),
      events: [{ event: 'document.signed', timestamp: clock.toISOString(), details: { signer: 'x' } }],
    });
  }
};

describe('envelope.create', () => {
  it.each([
    [
      'a signer without a signature field',
      [approver('Ann'), signer('Bob', 1, { fields: [] })],
      'recipients.1',
    ],
    [
      'an approver with fields',
      [signer('Ann'), { ...approver('Bob'), fields: [signatureField] }],
      'recipients.1.fields',
    ],
    [
      'one email twice in a group',
      [signer('Ann'), signer('Bob', 1, { email: 'ANN@example.com' })],
      'recipients.1',
    ],
    ['nobody who acts', [cc('Ann')], 'recipients'],
    [
      'a field past the last page',
      [signer('Ann', 1, { fields: [signatureField, { ...signatureField, page: 2 }] })],
      'recipients.0.fields.1',
    ],
  ])('refuses %s, naming the recipient or field', async (_, recipients, field) => {
    await expect(create(recipients)).rejects.toMatchObject({
      code: 'invalid_argument',
      field,
      message: expect.stringContaining(field) as unknown,
    });
  });

  it('refuses more than 200 fields in all', async () => {
    const fields = Array.from({ length: 100 }, () => signatureField);
    const recipients = [
      signer('A', 1, { fields }),
      signer('B', 1, { fields }),
      signer('C', 2, { fields: [signatureField] }),
    ];
    await expect(create(recipients)).rejects.toMatchObject({
      code: 'invalid_argument',
      field: 'recipients.2.fields.0',
    });
  });

  it('stores the recipients in order with the defaults, and opens the first group only', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const created = await create([signer('Ann', 2), signer('Bob', 1), approver('Cid', 1), cc('Dee', 1)]);
    expect(created.status).toBe('pending');
    expect(created.subject).toBe('Please sign: lease.pdf');
    expect(created.currentOrder).toBe(1);
    expect(created.recipients.map((r) => [r.name, r.status])).toEqual([
      ['Ann', 'waiting'],
      ['Bob', 'notified'],
      ['Cid', 'notified'],
      ['Dee', 'waiting'],
    ]);
    expect(created.recipients[0]?.fields[0]).toMatchObject({ height: 10, required: true });
    expect(created.expiresAt).toBe(new Date(clock.getTime() + 30 * DAY).toISOString());
    expect(await turnsOf(created.envelopeId)).toEqual(['Bob', 'Cid']);
    expect(await outboxOf(created.envelopeId, 'events.envelope.sent')).toHaveLength(1);
  });

  it('starts the head at revision 0 from pdf.prepare-envelope, every field named by its recipient', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const created = await create([
      approver('Ann'),
      signer('Bob', 2, { fields: [signatureField, signatureField] }),
    ]);
    const request = prepared.get(created.envelopeId);
    expect(request).toMatchObject({
      envelopeId: created.envelopeId,
      auditId: created.auditId,
      sourceKey: expect.stringMatching(/^pending\//) as unknown,
      // Written under scratch/ (expired by the bucket's lifecycle), then copied into place.
      targetKey: `scratch/envelopes/${request?.accountId}/${created.envelopeId}/0.pdf`,
      createdAt: created.createdAt,
      subject: created.subject,
    });
    // Recipients in the sender's order: pdf-signer names Bob's fields r1f0 and r1f1.
    expect(request?.recipients.map((r) => [r.name, r.role, r.order, r.fields.length])).toEqual([
      ['Ann', 'approver', 1, 0],
      ['Bob', 'signer', 2, 2],
    ]);
    expect(request?.recipients[1]?.fields[0]).toMatchObject({ height: 10, required: true });
    // The original stays where it was; the head is revision 0.
    expect(await blob.stat(request?.sourceKey ?? '')).toBeDefined();
    const { rows } = await db.query('select head_key, original_key from documents.envelopes where id = $1', [
      created.envelopeId,
    ]);
    const headKey = `envelopes/${request?.accountId}/${created.envelopeId}/0.pdf`;
    expect(rows[0]).toEqual({ head_key: headKey, original_key: request?.sourceKey });
    expect(await blob.stat(headKey)).toBeDefined();
    expect(await blob.stat(request?.targetKey ?? '')).toBeUndefined();
  });

  it('writes nothing when pdf-signer refuses the document', async () => {
    const accountId = randomUUID();
    await expect(create([signer('Ann')], { accountId, fileName: 'refused.pdf' })).rejects.toMatchObject({
      code: 'invalid_argument',
      field: 'file',
    });
    const { rows } = await db.query('select id from documents.envelopes where account_id = $1', [accountId]);
    expect(rows).toEqual([]);
  });

  it('leaves no revision 0 in storage when the database refuses the envelope', async () => {
    const accountId = randomUUID();
    const subject = `Refused by the database ${randomUUID()}`;
    // A rule of the database the envelope breaks, after pdf-signer has written revision 0.
    await db.query(
      `alter table documents.envelopes add constraint test_refused_subject check (subject <> '${subject}')`,
    );
    try {
      await expect(create([signer('Ann')], { accountId, subject })).rejects.toMatchObject({
        code: 'internal',
      });
    } finally {
      await db.query('alter table documents.envelopes drop constraint test_refused_subject');
    }

    const asked = [...prepared.values()].find((r) => r.accountId === accountId);
    expect(asked?.targetKey).toMatch(/^scratch\//);
    expect(await keysUnder(`envelopes/${accountId}/`)).toEqual([]);
    expect(await keysUnder(`scratch/envelopes/${accountId}/`)).toEqual([]);
    const { rows } = await db.query('select id from documents.envelopes where account_id = $1', [accountId]);
    expect(rows).toEqual([]);
  });

  it('keeps one revision 0 when two requests with one Idempotency-Key race past the check', async () => {
    const request = createRequest([signer('Ann')], {
      fileName: 'race.pdf',
      idempotency: { key: `key-${randomUUID()}`, requestHash: 'c'.repeat(64) },
    });
    await blob.put(request.objectKey, Buffer.from(`%PDF-1.7 original ${randomUUID()}`));

    // The stand-in answers both only once both have been prepared: neither found the other's envelope.
    const [a, b] = await Promise.all([
      bed.client.request(EnvelopeCreate, request),
      bed.client.request(EnvelopeCreate, request),
    ]);

    expect(a.envelopeId).toBe(b.envelopeId);
    expect([a.replayed, b.replayed].sort()).toEqual([false, true]);
    const asked = [...prepared.values()].filter((r) => r.accountId === request.accountId);
    expect(asked).toHaveLength(2);
    expect(await keysUnder(`envelopes/${request.accountId}/`)).toEqual([
      `envelopes/${request.accountId}/${a.envelopeId}/0.pdf`,
    ]);
    expect(await keysUnder(`scratch/envelopes/${request.accountId}/`)).toEqual([]);
  });

  it('answers a replay of an Idempotency-Key with the envelope and publishes nothing more', async () => {
    const request = createRequest([signer('Ann')], {
      idempotency: { key: `key-${randomUUID()}`, requestHash: 'a'.repeat(64) },
    });
    const first = await bed.client.request(EnvelopeCreate, request);
    const before = await outboxOf(first.envelopeId);
    const replay = await bed.client.request(EnvelopeCreate, request);
    expect(replay).toMatchObject({ envelopeId: first.envelopeId, replayed: true });
    expect(await outboxOf(first.envelopeId)).toEqual(before);
    const { rows } = await db.query('select id from documents.envelopes where account_id = $1', [
      request.accountId,
    ]);
    expect(rows).toHaveLength(1);
    await expect(
      bed.client.request(EnvelopeCreate, {
        ...request,
        idempotency: { key: request.idempotency?.key ?? '', requestHash: 'b'.repeat(64) },
      }),
    ).rejects.toMatchObject({ code: 'conflict', field: 'Idempotency-Key' });
  });
});

describe('turn order', () => {
  it('gives the second group no turn and no link until the first has signed', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const created = await create([signer('Ann', 1), signer('Bob', 2)]);
    const bob = recipientId(created, 'Bob');
    expect(await turnsOf(created.envelopeId)).toEqual(['Ann']);
    await expect(
      bed.client.request(EnvelopeAttachLink, { recipientId: bob, tokenHash: newToken(), mode: 'replace' }),
    ).rejects.toMatchObject({ code: 'conflict' });

    const ann = await linkOf(recipientId(created, 'Ann'));
    const reply = await sign(ann);
    expect(reply).toMatchObject({ recipientStatus: 'signed', currentOrder: 2, completing: false });
    expect(await turnsOf(created.envelopeId)).toEqual(['Ann', 'Bob']);
    const bobLink = await linkOf(bob);
    const found = await bed.client.request(EnvelopeFindByToken, { tokenHash: bobLink });
    expect(found).toMatchObject({ revision: 1, envelopeStatus: 'pending', embedded: false });
    expect(found.linkUsedAt).toBeUndefined();
    expect(found.objectKey).toMatch(/^revisions\//);
    expect(found.others).toEqual([{ name: 'Ann', role: 'signer', order: 1, status: 'signed' }]);
    // Ann acted: her link now opens a page that says so.
    const annAgain = await bed.client.request(EnvelopeFindByToken, { tokenHash: ann });
    expect(annAgain.recipient.status).toBe('signed');
    await expect(bed.client.request(EnvelopeClaim, { tokenHash: ann })).rejects.toMatchObject({
      code: 'conflict',
    });
  });

  it('never lets people in copy hold a group up, and embedded recipients get no turn event', async () => {
    const created = await create([cc('Cat', 1), signer('Eve', 2, { embedded: true }), signer('Fay', 2)]);
    expect(created.currentOrder).toBe(2);
    expect(await turnsOf(created.envelopeId)).toEqual(['Fay']);
    expect(created.recipients.find((r) => r.name === 'Eve')?.status).toBe('notified');
    await expect(
      bed.client.request(EnvelopeAttachLink, {
        recipientId: recipientId(created, 'Cat'),
        tokenHash: newToken(),
        mode: 'replace',
      }),
    ).rejects.toMatchObject({ code: 'conflict' });
  });
});

describe('envelope.claim', () => {
  it('gives the head to one of two signers claiming at once; the other is busy', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const created = await create([signer('Ann'), signer('Bob')]);
    const links = await Promise.all([
      linkOf(recipientId(created, 'Ann')),
      linkOf(recipientId(created, 'Bob')),
    ]);
    const claims = await Promise.all(
      links.map((tokenHash) => bed.client.request(EnvelopeClaim, { tokenHash })),
    );
    expect(claims.map((c) => c.outcome).sort()).toEqual(['busy', 'claimed']);
    const winner = links[claims.findIndex((c) => c.outcome === 'claimed')] ?? '';
    const loser = links[claims.findIndex((c) => c.outcome === 'busy')] ?? '';
    // The holder claiming again is a double submit.
    await expect(bed.client.request(EnvelopeClaim, { tokenHash: winner })).rejects.toMatchObject({
      code: 'conflict',
    });
    // Released, the head goes to the other at once.
    await bed.client.request(EnvelopeRelease, { tokenHash: winner });
    expect(await bed.client.request(EnvelopeClaim, { tokenHash: loser })).toMatchObject({
      outcome: 'claimed',
      revision: 0,
      objectKey: expect.stringMatching(/^envelopes\/.*\/0\.pdf$/) as unknown,
    });
  });

  it('lets a lapsed hold go to another signer', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const created = await create([signer('Ann'), signer('Bob')]);
    const ann = await linkOf(recipientId(created, 'Ann'));
    const bob = await linkOf(recipientId(created, 'Bob'));
    await bed.client.request(EnvelopeClaim, { tokenHash: ann });
    expect(await bed.client.request(EnvelopeClaim, { tokenHash: bob })).toMatchObject({ outcome: 'busy' });
    clock = new Date(clock.getTime() + 121_000);
    expect(await bed.client.request(EnvelopeClaim, { tokenHash: bob })).toMatchObject({ outcome: 'claimed' });
  });
});

describe('acting at once', () => {
  it('records two signers of one group signing at once, and queues the finalization once', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const created = await create([signer('Ann'), signer('Bob'), cc('Cat', 2)]);
    const links = await Promise.all([
      linkOf(recipientId(created, 'Ann')),
      linkOf(recipientId(created, 'Bob')),
    ]);
    const replies = await Promise.all(links.map((tokenHash) => sign(tokenHash)));
    expect(replies.map((r) => r.recipientStatus)).toEqual(['signed', 'signed']);
    expect(replies.filter((r) => r.completing)).toHaveLength(1);
    const { accountId } = await bed.client.request(EnvelopeFindByToken, { tokenHash: links[0] ?? '' });
    const envelope = await bed.client.request(EnvelopeGet, { accountId, envelopeId: created.envelopeId });
    expect(envelope).toMatchObject({ revision: 2, status: 'pending', currentOrder: null });
    expect(await outboxOf(created.envelopeId, 'events.envelope.finalize-due')).toHaveLength(1);
    expect(await outboxOf(created.envelopeId, 'events.envelope.recipient-signed')).toHaveLength(2);
  });

  it('records two approvers approving at once, and queues the finalization once', async () => {
    const created = await create([approver('Ann'), approver('Bob')]);
    const links = await Promise.all([
      linkOf(recipientId(created, 'Ann')),
      linkOf(recipientId(created, 'Bob')),
    ]);
    const replies = await Promise.all(
      links.map((tokenHash) => bed.client.request(EnvelopeApprove, { tokenHash, ...act })),
    );
    expect(replies.map((r) => r.recipientStatus)).toEqual(['approved', 'approved']);
    expect(replies.filter((r) => r.completing)).toHaveLength(1);
    expect(await outboxOf(created.envelopeId, 'events.envelope.finalize-due')).toHaveLength(1);
  });
});

describe('envelope.approve', () => {
  it('lets an approver approve and opens the next group; refuses a signer', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const created = await create([approver('Ann', 1), signer('Bob', 1), signer('Cid', 2)]);
    const ann = await linkOf(recipientId(created, 'Ann'));
    const bob = await linkOf(recipientId(created, 'Bob'));
    await expect(bed.client.request(EnvelopeApprove, { tokenHash: bob, ...act })).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(bed.client.request(EnvelopeClaim, { tokenHash: ann })).rejects.toMatchObject({
      code: 'conflict',
    });
    expect(await bed.client.request(EnvelopeApprove, { tokenHash: ann, ...act })).toMatchObject({
      recipientStatus: 'approved',
      currentOrder: 1,
      completing: false,
    });
    expect(await turnsOf(created.envelopeId)).toEqual(['Ann', 'Bob']);
    await sign(bob);
    expect(await turnsOf(created.envelopeId)).toEqual(['Ann', 'Bob', 'Cid']);
    const approved = await outboxOf(created.envelopeId, 'events.envelope.recipient-approved');
    expect(approved.map((row) => row.payload)).toEqual([
      expect.objectContaining({
        ipAddress: act.ipAddress,
        recipient: expect.objectContaining({ name: 'Ann' }) as unknown,
      }),
    ]);
  });
});

describe('envelope.decline', () => {
  it('ends the envelope, kills every link and tells those who acted', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const created = await create([signer('Ann', 1), approver('Bob', 2), signer('Cid', 2)]);
    const ann = await linkOf(recipientId(created, 'Ann'));
    await sign(ann);
    const bob = await linkOf(recipientId(created, 'Bob'));
    const cid = await linkOf(recipientId(created, 'Cid'));
    expect(
      await bed.client.request(EnvelopeDecline, { tokenHash: bob, ...act, reason: 'Wrong amount' }),
    ).toMatchObject({ recipientStatus: 'declined', envelopeStatus: 'declined', currentOrder: null });
    for (const tokenHash of [ann, bob, cid]) {
      expect((await bed.client.request(EnvelopeFindByToken, { tokenHash })).envelopeStatus).toBe('declined');
    }
    await expect(bed.client.request(EnvelopeClaim, { tokenHash: cid })).rejects.toMatchObject({
      code: 'conflict',
    });
    await expect(
      bed.client.request(EnvelopeDecline, { tokenHash: cid, ...act, reason: 'me too' }),
    ).rejects.toMatchObject({ code: 'conflict' });
    const [declined, ...more] = await outboxOf(created.envelopeId, 'events.envelope.declined');
    expect(more).toEqual([]);
    expect(declined?.payload).toMatchObject({
      reason: 'Wrong amount',
      decliner: { name: 'Bob', role: 'approver' },
      notify: [expect.objectContaining({ name: 'Ann' })],
    });
    const { rows } = await db.query(
      `select token_hash from documents.envelope_links l join documents.envelope_recipients r on r.id = l.recipient_id
       where r.envelope_id = $1 and l.revoked_at is null`,
      [created.envelopeId],
    );
    expect(rows).toEqual([]);
  });
});

describe('envelope.cancel', () => {
  it('cancels a pending envelope and tells those whose turn came and who had not acted', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const created = await create([signer('Ann', 1), approver('Bob', 1), signer('Cid', 1), signer('Dan', 2)]);
    const cid = await linkOf(recipientId(created, 'Cid'));
    await sign(cid);
    const { accountId } = await bed.client.request(EnvelopeFindByToken, { tokenHash: cid });
    const request = { accountId, envelopeId: created.envelopeId };
    await expect(
      bed.client.request(EnvelopeCancel, { ...request, accountId: randomUUID() }),
    ).rejects.toMatchObject({ code: 'not_found' });
    const canceled = await bed.client.request(EnvelopeCancel, request);
    expect(canceled).toMatchObject({ status: 'canceled', currentOrder: null });
    expect(canceled.canceledAt).toBe(clock.toISOString());
    await expect(bed.client.request(EnvelopeCancel, request)).rejects.toMatchObject({ code: 'conflict' });
    expect((await bed.client.request(EnvelopeFindByToken, { tokenHash: cid })).envelopeStatus).toBe(
      'canceled',
    );
    const [event] = await outboxOf(created.envelopeId, 'events.envelope.canceled');
    expect((event?.payload.notify as { name: string }[]).map((r) => r.name)).toEqual(['Ann', 'Bob']);
  });
});

describe('expiry', () => {
  it('reads a pending envelope past its expiry as expired; the sweep marks it and publishes once', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const created = await create([signer('Ann')], { expiresInDays: 1 });
    const ann = await linkOf(recipientId(created, 'Ann'));
    const accountId = (await bed.client.request(EnvelopeFindByToken, { tokenHash: ann })).accountId;
    clock = new Date(clock.getTime() + 1.5 * DAY);
    expect(
      await bed.client.request(EnvelopeGet, { accountId, envelopeId: created.envelopeId }),
    ).toMatchObject({
      status: 'expired',
      currentOrder: null,
      expiredAt: created.expiresAt,
    });
    await expect(bed.client.request(EnvelopeClaim, { tokenHash: ann })).rejects.toMatchObject({
      code: 'conflict',
    });
    const sweep = createEnvelopeSweep({
      pool,
      logger: createLogger({ service: 'test', level: 'error' }),
      batch: 100,
      now: () => clock,
    });
    expect((await sweep.runOnce())?.expired).toContain(created.envelopeId);
    expect((await sweep.runOnce())?.expired).not.toContain(created.envelopeId);
    const [event, ...more] = await outboxOf(created.envelopeId, 'events.envelope.expired');
    expect(more).toEqual([]);
    expect(event?.payload).toMatchObject({ occurredAt: created.expiresAt });
    // The sender's email names who had not acted.
    expect((event?.payload.notify as { name: string }[]).map((r) => r.name)).toEqual(['Ann']);
    const { rows } = await db.query<{ status: string }>(
      'select status from documents.envelopes where id = $1',
      [created.envelopeId],
    );
    expect(rows[0]?.status).toBe('expired');
    expect((await bed.client.request(EnvelopeFindByToken, { tokenHash: ann })).envelopeStatus).toBe(
      'expired',
    );
  });
});

describe('reminders', () => {
  it('reminds a recipient whose turn came on the envelope settings, never an embedded one', async () => {
    const start = new Date('2026-05-04T08:00:00.000Z');
    clock = start;
    const created = await create([signer('Ann', 1), signer('Eve', 1, { embedded: true }), signer('Bob', 2)], {
      reminders: { firstAfterDays: 1, everyDays: 2, max: 2 },
    });
    const ann = recipientId(created, 'Ann');
    const sweep = createEnvelopeSweep({
      pool,
      logger: createLogger({ service: 'test', level: 'error' }),
      batch: 500,
    });
    const mine = async (days: number) => {
      const run = await sweep.runOnce(new Date(start.getTime() + days * DAY));
      return (run?.reminded ?? [])
        .filter((r) => created.recipients.some((c) => c.recipientId === r.recipientId))
        .map((r) => [r.recipientId === ann ? 'Ann' : r.recipientId, r.reminderNumber]);
    };
    expect(await mine(0.9)).toEqual([]);
    expect(await mine(1)).toEqual([['Ann', 1]]);
    expect(await mine(2)).toEqual([]);
    // Reminders missed while no sweep ran collapse into one: the latest due.
    expect(await mine(10)).toEqual([['Ann', 2]]);
    expect(await mine(20)).toEqual([]);
    const reminders = (await outboxOf(created.envelopeId, 'events.envelope.recipient-turn')).filter(
      (row) => row.payload.reason === 'reminder',
    );
    expect(reminders.map((row) => (row.payload.recipient as { name: string }).name)).toEqual(['Ann', 'Ann']);
  });
});

describe('links', () => {
  it('opens an embedded link once, within 5 minutes', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const created = await create([signer('Eve', 1, { embedded: true })]);
    const eve = recipientId(created, 'Eve');
    const lapsed = await linkOf(eve, 'embedded');
    clock = new Date(clock.getTime() + 5 * 60_000 + 1);
    await expect(bed.client.request(EnvelopeFindByToken, { tokenHash: lapsed })).rejects.toMatchObject({
      code: 'not_found',
    });
    const link = await linkOf(eve, 'embedded');
    expect(await bed.client.request(EnvelopeFindByToken, { tokenHash: link })).toMatchObject({
      embedded: true,
      linkUsedAt: null,
    });
    expect(await bed.client.request(EnvelopeRecordView, { tokenHash: link, ...act })).toMatchObject({
      firstView: true,
    });
    // Used up by that view: the gateway refuses to load the page through it again.
    expect((await bed.client.request(EnvelopeFindByToken, { tokenHash: link })).linkUsedAt).toBe(
      clock.toISOString(),
    );
    await expect(bed.client.request(EnvelopeRecordView, { tokenHash: link, ...act })).rejects.toMatchObject({
      code: 'conflict',
    });
    // The page it opened goes on working past the 5 minutes.
    clock = new Date(clock.getTime() + 10 * 60_000);
    expect(await bed.client.request(EnvelopeClaim, { tokenHash: link })).toMatchObject({
      outcome: 'claimed',
    });
  });

  it('revokes earlier links on replace, keeps them on add; unknown links are not found', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const created = await create([signer('Ann')]);
    const ann = recipientId(created, 'Ann');
    const first = await linkOf(ann);
    const added = await linkOf(ann, 'add');
    const replaced = await linkOf(ann, 'replace');
    await expect(bed.client.request(EnvelopeFindByToken, { tokenHash: first })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(bed.client.request(EnvelopeFindByToken, { tokenHash: added })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(
      (await bed.client.request(EnvelopeFindByToken, { tokenHash: replaced })).recipient.recipientId,
    ).toBe(ann);
    const another = await linkOf(ann, 'add');
    expect((await bed.client.request(EnvelopeFindByToken, { tokenHash: replaced })).recipient.status).toBe(
      'notified',
    );
    expect(
      (await bed.client.request(EnvelopeFindByToken, { tokenHash: another })).recipient.recipientId,
    ).toBe(ann);
    await expect(
      bed.client.request(EnvelopeAttachLink, {
        recipientId: `rcp_${'x'.repeat(24)}`,
        tokenHash: newToken(),
        mode: 'add',
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('envelope.list', () => {
  it('pages newest first and filters by status', async () => {
    const accountId = randomUUID();
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      clock = new Date(Date.parse('2026-04-01T00:00:00.000Z') + i * 1000);
      made.push(
        (await create([signer('Ann')], { accountId, objectKey: `pending/${accountId}/${i}.pdf` })).envelopeId,
      );
    }
    await bed.client.request(EnvelopeCancel, { accountId, envelopeId: made[1] ?? '' });
    const first = await bed.client.request(EnvelopeList, { accountId, limit: 2 });
    expect(first.envelopes.map((e) => e.envelopeId)).toEqual([made[4], made[3]]);
    const second = await bed.client.request(EnvelopeList, {
      accountId,
      limit: 2,
      cursor: first.nextCursor ?? '',
    });
    expect(second.envelopes.map((e) => e.envelopeId)).toEqual([made[2], made[1]]);
    const third = await bed.client.request(EnvelopeList, {
      accountId,
      limit: 2,
      cursor: second.nextCursor ?? '',
    });
    expect(third).toMatchObject({
      envelopes: [expect.objectContaining({ envelopeId: made[0] })],
      nextCursor: null,
    });
    const canceled = await bed.client.request(EnvelopeList, { accountId, limit: 10, status: 'canceled' });
    expect(canceled.envelopes.map((e) => e.envelopeId)).toEqual([made[1]]);
    await expect(
      bed.client.request(EnvelopeList, { accountId, limit: 2, cursor: 'nope!' }),
    ).rejects.toMatchObject({
      code: 'invalid_argument',
      field: 'cursor',
    });
  });
});

describe('finalize', () => {
  let pdf: Bus | undefined;
  const sealed: string[] = [];
  /** Envelopes whose first sealing fails (pdf-signer down or failing). */
  const failOnce = new Set<string>();

  test.beforeAll(async ({ bed: fileBed }) => {
    // pdf-signer's pdf.complete-envelope, as far as document-store sees it: the head copied to the
    // signed key, its hash answered; the first sealing of an envelope in failOnce fails.
    pdf = await servePdfSigner(fileBed.config, [
      completeEnvelopeStandIn(
        () => blob,
        (request) => {
          sealed.push(request.envelopeId);
          if (failOnce.delete(request.envelopeId)) throw new Error('the seal failed');
        },
        (request) => [
          {
            event: 'envelope.sealed',
            timestamp: new Date().toISOString(),
            details: { signers: request.recipients.filter((r) => r.role === 'signer').length },
          },
        ],
      ),
    ]);
  });

  afterAll(async () => {
    await pdf?.drain();
  });

  it('records the sealed document under the envelope audit ID, once, with a chained log', async () => {
    clock = new Date();
    const created = await create([signer('Ann', 1), approver('Bob', 2), cc('Cat', 2)]);
    const ann = await linkOf(recipientId(created, 'Ann'));
    const { accountId } = await bed.client.request(EnvelopeFindByToken, { tokenHash: ann });
    await bed.client.request(EnvelopeRecordView, { tokenHash: ann, ...act });
    await sign(ann);
    const bob = await linkOf(recipientId(created, 'Bob'));
    expect(await bed.client.request(EnvelopeApprove, { tokenHash: bob, ...act })).toMatchObject({
      completing: true,
    });

    const ref = { accountId, envelopeId: created.envelopeId };
    await expect
      .poll(async () => (await bed.client.request(EnvelopeGet, ref)).status, { timeout: 15_000 })
      .toBe('completed');
    const envelope = await bed.client.request(EnvelopeGet, ref);
    expect(envelope.recipients.find((r) => r.name === 'Cat')?.status).toBe('notified');
    const document = await bed.client.request(EnvelopeDocument, ref);
    expect(document).toMatchObject({ complete: true, signersDone: 1, signersTotal: 1, revision: 1 });
    expect(document.objectKey).toBe(`signed/${accountId}/${created.auditId}.pdf`);
    expect(await blob.stat(document.objectKey)).toBeDefined();

    const listed = await bed.client.request(DocumentList, {
      accountId,
      page: 1,
      limit: 10,
      sortBy: 'created_at',
      sortDir: 'desc',
    });
    expect(listed.documents.map((d) => d.auditId)).toEqual([created.auditId]);
    const recorded = await bed.client.request(DocumentGet, { accountId, auditId: created.auditId });
    expect(recorded).toMatchObject({
      signerName: 'Ann',
      signerEmail: 'ann@example.com',
      ipAddress: act.ipAddress,
    });
    expect(recorded.fileHash).toBe(envelope.fileHash);
    expect(verifyAuditChain(created.auditId, recorded.auditLog)).toEqual([]);
    const events = recorded.auditLog.map((e) => e.event);
    expect(events.slice(0, 2)).toEqual(['envelope.sent', 'envelope.prepared']);
    expect(events).toEqual(
      expect.arrayContaining([
        'envelope.notified',
        'envelope.viewed',
        'envelope.signed',
        'envelope.approved',
      ]),
    );
    expect(events.slice(-3)).toEqual(['envelope.sealed', 'envelope.completed', 'document.recorded']);

    // A second delivery of finalize-due finds it completed: nothing is sealed or recorded again.
    await bed.client.publish(EnvelopeFinalizeDue, { eventId: randomUUID(), ...ref });
    await sleep(1000);
    expect(sealed.filter((id) => id === created.envelopeId)).toHaveLength(1);
    expect(await outboxOf(created.envelopeId, 'events.envelope.completed')).toHaveLength(1);
    const signedRows = await db.query(
      `select payload from documents.outbox where subject = 'events.document.signed' and payload->>'auditId' = $1`,
      [created.auditId],
    );
    expect(signedRows.rows).toEqual([
      { payload: expect.objectContaining({ countFromRecord: true }) as unknown },
    ]);
  });

  it('records nothing when the seal fails, and completes on the redelivery', async () => {
    clock = new Date();
    const created = await create([approver('Ann')]);
    failOnce.add(created.envelopeId);
    const ann = await linkOf(recipientId(created, 'Ann'));
    const { accountId } = await bed.client.request(EnvelopeFindByToken, { tokenHash: ann });
    await bed.client.request(EnvelopeApprove, { tokenHash: ann, ...act });
    const ref = { accountId, envelopeId: created.envelopeId };
    await expect.poll(() => sealed.filter((id) => id === created.envelopeId).length).toBeGreaterThan(0);
    expect(await outboxOf(created.envelopeId, 'events.envelope.completed')).toEqual([]);
    await expect
      .poll(async () => (await bed.client.request(EnvelopeGet, ref)).status, { timeout: 15_000 })
      .toBe('completed');
    expect(sealed.filter((id) => id === created.envelopeId)).toHaveLength(2);
    expect(await outboxOf(created.envelopeId, 'events.envelope.completed')).toHaveLength(1);
    const recorded = await bed.client.request(DocumentGet, { accountId, auditId: created.auditId });
    // Approvers only: nobody signed, so no signer's name and no address.
    expect(recorded).toMatchObject({ signerName: '', ipAddress: '' });
    expect(verifyAuditChain(created.auditId, recorded.auditLog)).toEqual([]);
  });
});

describe('the test clock', () => {
  // Last in the file: this store's sweep runs on real time moved two days on, and so expires every
  // pending envelope of the file that the fixed clock of the tests above made.
  it('expires envelopes on the sweep of a store whose clock SIGNING_TEST_CLOCK_FILE moves', async () => {
    clock = new Date();
    const created = await create([signer('Ann')], { expiresInDays: 1 });
    const dir = await mkdtemp(join(tmpdir(), 'envelope-clock-'));
    const clockFile = join(dir, 'offset');
    await writeFile(clockFile, String(2 * DAY));
    const moved = await startDocumentStore(
      {
        ...bed.config,
        SIGNING_TEST_CLOCK_FILE: clockFile,
        SIGNING_SWEEP_INTERVAL_MS: 100,
        SIGNED_SWEEP_INTERVAL_MS: 0,
      },
      { logger: createLogger({ service: 'test', level: 'error' }) },
    );
    try {
      await expect
        .poll(async () => {
          const { rows } = await db.query<{ status: string }>(
            'select status from documents.envelopes where id = $1',
            [created.envelopeId],
          );
          return rows[0]?.status;
        })
        .toBe('expired');
      await expect
        .poll(async () => (await outboxOf(created.envelopeId, 'events.envelope.expired')).length)
        .toBe(1);
    } finally {
      await moved.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
