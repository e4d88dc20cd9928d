import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Bus } from '@esign/bus';
import type { BlobStore } from '@esign/blob';
import {
  DocumentGet,
  EnvelopeApprove,
  EnvelopeAttachLink,
  EnvelopeCancel,
  EnvelopeClaim,
  EnvelopeCreate,
  EnvelopeFindByToken,
  EnvelopeGet,
  EnvelopeRecordRevision,
  EnvelopeRecordView,
  EnvelopeReplaceRecipient,
  EnvelopeResendRecipient,
  type TCertificateRecipient,
  type TEnvelope,
} from '@esign/contracts';
import type pg from 'pg';
import type { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import {
  completeEnvelopeStandIn,
  prepareEnvelopeStandIn,
  servePdfSigner,
  test,
  verifyAuditChain,
  type TestBed,
} from './helpers';

/**
 * Resending a recipient's email and replacing a recipient (`envelope.resend-recipient`,
 * `envelope.replace-recipient`) against the real store, NATS, Postgres and the S3 protocol; pdf-signer's
 * `pdf.complete-envelope` is a stand-in that keeps the certificate's recipients it was given.
 */

let bed: TestBed;
let db: pg.Client;
let blob: BlobStore;
let pdf: Bus | undefined;
let clock = new Date('2026-03-02T09:00:00.000Z');
/** What the certificate of completion was asked to list, per envelope. */
const certificates = new Map<string, TCertificateRecipient[]>();

test.override('storeOptions', {
  label: 'envreplace',
  config: { SIGNING_SWEEP_INTERVAL_MS: 0, OUTBOX_POLL_MS: 100 },
  now: () => clock,
});

test.beforeAll(async ({ bed: fileBed, db: fileDb }) => {
  bed = fileBed;
  db = fileDb;
  pdf = await servePdfSigner(fileBed.config, [
    prepareEnvelopeStandIn(() => blob),
    completeEnvelopeStandIn(
      () => blob,
      (request) => certificates.set(request.envelopeId, request.recipients),
    ),
  ]);
});

// The store's own object storage: the stand-ins write where it reads and copies.
test.beforeAll(({ objects }) => {
  blob = objects.blob;
});

afterAll(async () => {
  await pdf?.drain();
});

type TRecipientInput = z.input<(typeof EnvelopeCreate)['request']>['recipients'][number];

const signatureField = { type: 'signature' as const, page: 0, x: 10, y: 70, width: 30 };
const person = (
  name: string,
  role: TRecipientInput['role'],
  order = 1,
  extra: Partial<TRecipientInput> = {},
) => ({
  name,
  email: `${name.toLowerCase()}@example.com`,
  role,
  order,
  fields: role === 'signer' ? [signatureField] : [],
  ...extra,
});

/** An envelope of a new account, its original uploaded first; answers it with the account. */
const create = async (recipients: TRecipientInput[]) => {
  const accountId = randomUUID();
  const objectKey = `pending/${accountId}/${randomUUID()}.pdf`;
  await blob.put(objectKey, Buffer.from(`%PDF-1.7 original ${randomUUID()}`));
  const envelope = await bed.client.request(EnvelopeCreate, {
    accountId,
    senderEmail: 'sender@example.com',
    fileName: 'lease.pdf',
    objectKey,
    originalHash: `sha256:${createHash('sha256').update(objectKey).digest('hex')}`,
    pageCount: 2,
    recipients,
  });
  return { envelope, accountId, ref: { accountId, envelopeId: envelope.envelopeId } };
};

const idOf = (envelope: TEnvelope, name: string): string => {
  const found = envelope.recipients.find((r) => r.name === name);
  if (!found) throw new Error(`no recipient ${name}`);
  return found.recipientId;
};

const newToken = () => createHash('sha256').update(randomBytes(32)).digest('hex');

/** A link attached as the mailer attaches one for a turn's email. */
const linkOf = async (recipientId: string) => {
  const tokenHash = newToken();
  await bed.client.request(EnvelopeAttachLink, {
    recipientId,
    tokenHash,
    mode: 'replace',
    eventId: randomUUID(),
  });
  return tokenHash;
};

const act = { ipAddress: '203.0.113.9', userAgent: 'vitest' };

const sign = async (tokenHash: string) => {
  const claim = await bed.client.request(EnvelopeClaim, { tokenHash });
  if (claim.outcome !== 'claimed') throw new Error('busy');
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
    events: [],
  });
};

/** The turn events of an envelope as [name, email, reason], in the order they were written. */
const turnsOf = async (envelopeId: string) => {
  const { rows } = await db.query<{
    payload: { recipient: { name: string; email: string }; reason: string };
  }>(
    `select payload from documents.outbox
     where payload->>'envelopeId' = $1 and subject = 'events.envelope.recipient-turn' order by created_at, id`,
    [envelopeId],
  );
  return rows.map((r) => [r.payload.recipient.name, r.payload.recipient.email, r.payload.reason]);
};

const storyOf = async (envelopeId: string) => {
  const { rows } = await db.query<{ event: string; details: Record<string, unknown> }>(
    'select event, details from documents.envelope_events where envelope_id = $1 order by id',
    [envelopeId],
  );
  return rows;
};

describe('envelope.resend-recipient', () => {
  it('publishes the turn again with reason resend and logs resent', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const { envelope, ref } = await create([person('Ann', 'signer'), person('Bob', 'approver')]);
    const ann = idOf(envelope, 'Ann');
    const answered = await bed.client.request(EnvelopeResendRecipient, { ...ref, recipientId: ann });
    expect(answered).toMatchObject({ envelopeId: envelope.envelopeId, status: 'pending' });
    expect(answered.recipients.find((r) => r.recipientId === ann)?.status).toBe('notified');
    const turns = await turnsOf(envelope.envelopeId);
    // The creation's two turns share a transaction (and so a time): their order is not defined.
    expect(turns.slice(0, 2).sort()).toEqual([
      ['Ann', 'ann@example.com', 'turn'],
      ['Bob', 'bob@example.com', 'turn'],
    ]);
    expect(turns.slice(2)).toEqual([['Ann', 'ann@example.com', 'resend']]);
    const resent = (await storyOf(envelope.envelopeId)).filter((e) => e.event === 'resent');
    expect(resent).toEqual([
      { event: 'resent', details: expect.objectContaining({ recipientId: ann }) as unknown },
    ]);
    // The mailer's new link (mode replace) kills the earlier one.
    const first = await linkOf(ann);
    await linkOf(ann);
    await expect(bed.client.request(EnvelopeFindByToken, { tokenHash: first })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('refuses a waiting recipient, one who acted, a cc, an embedded one and an ended envelope', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const { envelope, ref } = await create([
      person('Ann', 'signer', 1),
      person('Eve', 'approver', 1, { embedded: true }),
      person('Cat', 'cc', 1),
      person('Bob', 'signer', 2),
    ]);
    const resend = (name: string) =>
      bed.client.request(EnvelopeResendRecipient, { ...ref, recipientId: idOf(envelope, name) });
    await expect(resend('Bob')).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('turn') as unknown,
    });
    await expect(resend('Cat')).rejects.toMatchObject({ code: 'conflict', field: 'role' });
    await expect(resend('Eve')).rejects.toMatchObject({ code: 'conflict', field: 'embedded' });
    await sign(await linkOf(idOf(envelope, 'Ann')));
    const eveLink = newToken();
    await bed.client.request(EnvelopeAttachLink, {
      recipientId: idOf(envelope, 'Eve'),
      tokenHash: eveLink,
      mode: 'embedded',
    });
    await bed.client.request(EnvelopeApprove, { tokenHash: eveLink, ...act });
    await expect(resend('Ann')).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('signed') as unknown,
    });
    await expect(resend('Bob')).resolves.toMatchObject({ currentOrder: 2 });
    await bed.client.request(EnvelopeCancel, ref);
    await expect(resend('Bob')).rejects.toMatchObject({ code: 'conflict', field: 'status' });
    const resends = (await turnsOf(envelope.envelopeId)).filter(([, , reason]) => reason === 'resend');
    expect(resends).toEqual([['Bob', 'bob@example.com', 'resend']]);
  });

  it("answers not_found for another account's envelope and a recipient of another envelope", async () => {
    const one = await create([person('Ann', 'signer')]);
    const two = await create([person('Ann', 'signer')]);
    await expect(
      bed.client.request(EnvelopeResendRecipient, {
        ...one.ref,
        accountId: two.accountId,
        recipientId: idOf(one.envelope, 'Ann'),
      }),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      bed.client.request(EnvelopeResendRecipient, { ...one.ref, recipientId: idOf(two.envelope, 'Ann') }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('envelope.replace-recipient', () => {
  it("kills the replaced person's links, notifies the new person at once and keeps both in the story", async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const { envelope, ref } = await create([person('Ann', 'signer', 1), person('Bob', 'approver', 2)]);
    const ann = idOf(envelope, 'Ann');
    const oldLink = await linkOf(ann);
    await bed.client.request(EnvelopeRecordView, { tokenHash: oldLink, ...act });

    clock = new Date('2026-03-02T10:00:00.000Z');
    const replaced = await bed.client.request(EnvelopeReplaceRecipient, {
      ...ref,
      recipientId: ann,
      name: 'Zoe New',
      email: 'zoe@example.com',
    });
    const zoe = replaced.recipients.find((r) => r.recipientId === ann);
    expect(zoe).toMatchObject({
      name: 'Zoe New',
      email: 'zoe@example.com',
      role: 'signer',
      order: 1,
      status: 'notified',
      notifiedAt: clock.toISOString(),
      viewedAt: null,
      fields: envelope.recipients[0]?.fields,
      replaces: [{ name: 'Ann', email: 'ann@example.com', replacedAt: clock.toISOString() }],
    });
    expect((await bed.client.request(EnvelopeGet, ref)).recipients[0]?.replaces).toEqual(zoe?.replaces);
    expect((await bed.client.request(EnvelopeGet, ref)).recipients[1]?.replaces).toEqual([]);

    // The old link is unknown: no page, no act.
    await expect(bed.client.request(EnvelopeFindByToken, { tokenHash: oldLink })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(bed.client.request(EnvelopeClaim, { tokenHash: oldLink })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(await turnsOf(envelope.envelopeId)).toEqual([
      ['Ann', 'ann@example.com', 'turn'],
      ['Zoe New', 'zoe@example.com', 'turn'],
    ]);
    const story = await storyOf(envelope.envelopeId);
    expect(story.map((e) => e.event)).toEqual([
      'sent',
      'prepared',
      'notified',
      'emailed',
      'viewed',
      'replaced',
      'notified',
    ]);
    expect(story[5]?.details).toMatchObject({
      recipientId: ann,
      replacedName: 'Ann',
      replacedEmail: 'ann@example.com',
      replacedStatus: 'viewed',
      name: 'Zoe New',
      email: 'zoe@example.com',
    });

    // The new person's link opens their place; what they see never names whom they replaced.
    const newLink = await linkOf(ann);
    const found = await bed.client.request(EnvelopeFindByToken, { tokenHash: newLink });
    expect(found.recipient).toMatchObject({ name: 'Zoe New', status: 'notified' });
    expect(JSON.stringify(found)).not.toContain('ann@example.com');

    // Once the envelope ended, the old link is still unknown (not a 410 showing the new person).
    await bed.client.request(EnvelopeCancel, ref);
    await expect(bed.client.request(EnvelopeFindByToken, { tokenHash: oldLink })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect((await bed.client.request(EnvelopeFindByToken, { tokenHash: newLink })).envelopeStatus).toBe(
      'canceled',
    );
  });

  it('gives no link to an email queued for the replaced person (the mailer skips it)', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const { envelope, ref } = await create([person('Ann', 'signer')]);
    const ann = idOf(envelope, 'Ann');
    await bed.client.request(EnvelopeResendRecipient, { ...ref, recipientId: ann });
    await bed.client.request(EnvelopeReplaceRecipient, {
      ...ref,
      recipientId: ann,
      name: 'Zoe',
      email: 'zoe@example.com',
    });
    const { rows } = await db.query<{ id: string; email: string }>(
      `select id, payload->'recipient'->>'email' as email from documents.outbox
       where payload->>'envelopeId' = $1 and subject = 'events.envelope.recipient-turn' order by created_at, id`,
      [envelope.envelopeId],
    );
    expect(rows.map((r) => r.email)).toEqual(['ann@example.com', 'ann@example.com', 'zoe@example.com']);
    const attach = (eventId: string) =>
      bed.client.request(EnvelopeAttachLink, {
        recipientId: ann,
        tokenHash: newToken(),
        mode: 'replace',
        eventId,
      });
    for (const old of rows.slice(0, 2)) {
      await expect(attach(old.id)).rejects.toMatchObject({ code: 'conflict', field: 'eventId' });
    }
    await expect(attach(rows[2]?.id ?? '')).resolves.toMatchObject({ recipientId: ann });
  });

  it("refuses an act through the replaced person's link that was waiting for the envelope", async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const { envelope, ref } = await create([person('Ann', 'approver'), person('Bob', 'signer', 2)]);
    const ann = idOf(envelope, 'Ann');
    const oldLink = await linkOf(ann);
    // Hold the envelope's row: the replacement queues first, then the old approver's approve, which
    // has found its link already and waits for the row behind the replacement.
    await db.query('begin');
    await db.query('select id from documents.envelopes where id = $1 for update', [envelope.envelopeId]);
    const replacing = bed.client.request(EnvelopeReplaceRecipient, {
      ...ref,
      recipientId: ann,
      name: 'Zoe',
      email: 'zoe@example.com',
    });
    await sleep(300);
    const approving = bed.client.request(EnvelopeApprove, { tokenHash: oldLink, ...act });
    const approved = approving.then(
      () => 'approved',
      (err: unknown) => (err as { code?: string }).code,
    );
    await sleep(300);
    await db.query('commit');
    await expect(replacing).resolves.toMatchObject({ status: 'pending' });
    expect(await approved).toBe('not_found');
    const now = await bed.client.request(EnvelopeGet, ref);
    expect(now.recipients[0]).toMatchObject({ name: 'Zoe', status: 'notified', actedAt: null });
  });

  it('changes only who will be asked when the recipient is waiting', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const { envelope, ref } = await create([person('Ann', 'signer', 1), person('Bob', 'approver', 2)]);
    const bob = idOf(envelope, 'Bob');
    const replaced = await bed.client.request(EnvelopeReplaceRecipient, {
      ...ref,
      recipientId: bob,
      name: 'Yan',
      email: 'yan@example.com',
    });
    expect(replaced.recipients[1]).toMatchObject({ name: 'Yan', status: 'waiting', notifiedAt: null });
    expect(await turnsOf(envelope.envelopeId)).toEqual([['Ann', 'ann@example.com', 'turn']]);
    await expect(
      bed.client.request(EnvelopeAttachLink, {
        recipientId: bob,
        tokenHash: newToken(),
        mode: 'replace',
        eventId: randomUUID(),
      }),
    ).rejects.toMatchObject({ code: 'conflict' });

    await sign(await linkOf(idOf(envelope, 'Ann')));
    expect(await turnsOf(envelope.envelopeId)).toEqual([
      ['Ann', 'ann@example.com', 'turn'],
      ['Yan', 'yan@example.com', 'turn'],
    ]);
  });

  it('ends a lease the replaced signer held, so the new person can sign at once', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const { envelope, ref } = await create([person('Ann', 'signer')]);
    const ann = idOf(envelope, 'Ann');
    const oldLink = await linkOf(ann);
    expect((await bed.client.request(EnvelopeClaim, { tokenHash: oldLink })).outcome).toBe('claimed');
    await bed.client.request(EnvelopeReplaceRecipient, {
      ...ref,
      recipientId: ann,
      name: 'Zed',
      email: 'zed@example.com',
    });
    const newLink = await linkOf(ann);
    expect(await sign(newLink)).toMatchObject({ recipientStatus: 'signed', completing: true });
  });

  it("refuses a claim that waited on the envelope's row while a replace removed its link", async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const { envelope } = await create([person('Ann', 'signer')]);
    const ann = idOf(envelope, 'Ann');
    const oldLink = await linkOf(ann);
    // A change holds the envelope's row (as a replace does) while the claim arrives.
    await db.query('begin');
    await db.query('select 1 from documents.envelopes where id = $1 for update', [envelope.envelopeId]);
    const claim = bed.client.request(EnvelopeClaim, { tokenHash: oldLink });
    for (let waited = 0; ; waited += 20) {
      const { rows } = await db.query<{ waiting: number }>(
        `select count(*)::int as waiting from pg_stat_activity
         where datname = current_database() and wait_event_type = 'Lock'`,
      );
      if (rows[0]?.waiting === 1) break;
      if (waited > 5_000) throw new Error('the claim never waited on the row');
      await sleep(20);
    }
    await db.query('delete from documents.envelope_links where recipient_id = $1', [ann]);
    await db.query('commit');
    await expect(claim).rejects.toMatchObject({ code: 'not_found' });
    const { rows } = await db.query<{ claim: string | null }>(
      'select claim_recipient_id as claim from documents.envelopes where id = $1',
      [envelope.envelopeId],
    );
    expect(rows[0]?.claim).toBeNull();
  });

  it('refuses a recipient who acted, an ended envelope, and an email already in the group', async () => {
    clock = new Date('2026-03-02T09:00:00.000Z');
    const { envelope, ref } = await create([
      person('Ann', 'signer', 1),
      person('Bob', 'approver', 1),
      person('Cat', 'cc', 1),
      person('Dan', 'signer', 2),
    ]);
    const replace = (name: string, email: string) =>
      bed.client.request(EnvelopeReplaceRecipient, {
        ...ref,
        recipientId: idOf(envelope, name),
        name: 'New',
        email,
      });
    await expect(replace('Ann', 'BOB@example.com')).rejects.toMatchObject({
      code: 'invalid_argument',
      field: 'email',
    });
    await expect(replace('Ann', 'cat@example.com')).rejects.toMatchObject({ code: 'invalid_argument' });
    // Another group may hold the same person (someone signing twice), and a cc can be replaced.
    await expect(replace('Dan', 'ann@example.com')).resolves.toMatchObject({ status: 'pending' });
    await expect(replace('Cat', 'copy@example.com')).resolves.toMatchObject({ status: 'pending' });
    await bed.client.request(EnvelopeApprove, { tokenHash: await linkOf(idOf(envelope, 'Bob')), ...act });
    await expect(replace('Bob', 'late@example.com')).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('approved') as unknown,
    });
    await bed.client.request(EnvelopeCancel, ref);
    await expect(replace('Ann', 'late@example.com')).rejects.toMatchObject({
      code: 'conflict',
      field: 'status',
    });
    const replacedCount = (await storyOf(envelope.envelopeId)).filter((e) => e.event === 'replaced');
    expect(replacedCount).toHaveLength(2);
  });

  it('lists both people in the certificate of completion and the audit log', async () => {
    clock = new Date();
    const { envelope, ref } = await create([person('Ann', 'signer', 1), person('Cat', 'cc', 2)]);
    const ann = idOf(envelope, 'Ann');
    await bed.client.request(EnvelopeRecordView, { tokenHash: await linkOf(ann), ...act });
    await bed.client.request(EnvelopeReplaceRecipient, {
      ...ref,
      recipientId: ann,
      name: 'Zoe New',
      email: 'zoe@example.com',
    });
    const zoeLink = await linkOf(ann);
    await bed.client.request(EnvelopeRecordView, { tokenHash: zoeLink, ...act });
    expect(await sign(zoeLink)).toMatchObject({ completing: true });
    await expect
      .poll(async () => (await bed.client.request(EnvelopeGet, ref)).status, { timeout: 15_000 })
      .toBe('completed');

    const rows = certificates.get(envelope.envelopeId) ?? [];
    expect(rows.map((r) => [r.name, r.email, r.status])).toEqual([
      ['Ann', 'ann@example.com', 'viewed'],
      ['Zoe New', 'zoe@example.com', 'signed'],
      ['Cat', 'cat@example.com', 'waiting'],
    ]);
    expect(rows[0]?.events.map((e) => [e.event, e.note])).toEqual([
      ['notified', undefined],
      ['viewed', undefined],
      ['replaced', 'Replaced by Zoe New <zoe@example.com>'],
    ]);
    expect(rows[1]?.events.map((e) => [e.event, e.note])).toEqual([
      ['replaced', 'In place of Ann <ann@example.com>'],
      ['notified', undefined],
      ['viewed', undefined],
      ['signed', undefined],
    ]);
    const recorded = await bed.client.request(DocumentGet, {
      accountId: ref.accountId,
      auditId: envelope.auditId,
    });
    expect(recorded).toMatchObject({ signerName: 'Zoe New', signerEmail: 'zoe@example.com' });
    expect(verifyAuditChain(envelope.auditId, recorded.auditLog)).toEqual([]);
    const replacedEntry = recorded.auditLog.find((e) => e.event === 'envelope.replaced');
    expect(replacedEntry?.details).toMatchObject({
      replacedEmail: 'ann@example.com',
      email: 'zoe@example.com',
    });
  });
});
