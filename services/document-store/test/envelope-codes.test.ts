import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Bus } from '@esign/bus';
import type { BlobStore } from '@esign/blob';
import {
  EnvelopeApprove,
  EnvelopeAttachLink,
  EnvelopeClaim,
  EnvelopeCreate,
  EnvelopeDecline,
  EnvelopeFindByToken,
  EnvelopeGet,
  EnvelopeRecordView,
  EnvelopeRequestCode,
  EnvelopeSetCode,
  EnvelopeVerifyCode,
  type TCertificateRecipient,
  type TEnvelope,
} from '@esign/contracts';
import type pg from 'pg';
import type { z } from 'zod';
import { afterAll, describe, expect, it } from 'vitest';
import { envelopeCodeHash } from '../src/domain/envelope/email-code';
import {
  completeEnvelopeStandIn,
  prepareEnvelopeStandIn,
  servePdfSigner,
  test,
  type TestBed,
} from './helpers';

let bed: TestBed;
let db: pg.Client;
let blob: BlobStore;
let pdf: Bus | undefined;
const certificates = new Map<string, TCertificateRecipient[]>();
/** The store's clock: tests move it. */
let clock = new Date();

test.override('storeOptions', {
  label: 'envelope-codes',
  config: { SIGNING_SWEEP_INTERVAL_MS: 0, OUTBOX_POLL_MS: 100 },
  now: () => clock,
});

test.beforeAll(async ({ bed: fileBed, db: fileDb }) => {
  bed = fileBed;
  db = fileDb;
  // pdf-signer's pdf.complete-envelope as document-store sees it: the certificate's recipients kept.
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

type TCreate = z.input<(typeof EnvelopeCreate)['request']>;

const create = async (recipients: TCreate['recipients']) => {
  const accountId = randomUUID();
  const objectKey = `pending/${accountId}/${randomUUID()}.pdf`;
  await blob.put(objectKey, Buffer.from('%PDF-1.7 original'));
  return bed.client.request(EnvelopeCreate, {
    accountId,
    senderEmail: 'sender@example.com',
    fileName: 'lease.pdf',
    objectKey,
    originalHash: `sha256:${'b'.repeat(64)}`,
    pageCount: 1,
    recipients,
  });
};

const approver = (name: string, requireEmailCode = true) => ({
  name,
  email: `${name.toLowerCase()}@example.com`,
  role: 'approver' as const,
  order: 1,
  requireEmailCode,
});

const idOf = (envelope: TEnvelope, name: string) => {
  const found = envelope.recipients.find((r) => r.name === name);
  if (!found) throw new Error(`no recipient ${name}`);
  return found.recipientId;
};

/** A link with a code, as the mailer attaches it. */
const linkWithCode = async (recipientId: string, code = '123456') => {
  const tokenHash = createHash('sha256').update(randomBytes(32)).digest('hex');
  const reply = await bed.client.request(EnvelopeAttachLink, {
    recipientId,
    tokenHash,
    mode: 'replace',
    eventId: randomUUID(),
    codeHash: envelopeCodeHash(tokenHash, code),
  });
  return { tokenHash, reply };
};

const act = { ipAddress: '203.0.113.7', userAgent: 'vitest-code' };

const storyOf = async (envelopeId: string) =>
  (
    await db.query<{ event: string; ip_address: string | null; user_agent: string | null }>(
      'select event, ip_address, user_agent from documents.envelope_events where envelope_id = $1 order by id',
      [envelopeId],
    )
  ).rows;

describe('one-time email codes', () => {
  it('needs the code before a view or an act; the right code unlocks the link once and for all', async () => {
    clock = new Date();
    const created = await create([approver('Ann'), approver('Bob', false)]);
    const { tokenHash, reply } = await linkWithCode(idOf(created, 'Ann'));
    expect(new Date(reply.codeExpiresAt ?? 0).getTime() - clock.getTime()).toBe(10 * 60_000);
    const stored = await db.query<{ code_hash: string }>(
      'select code_hash from documents.envelope_links where token_hash = $1',
      [tokenHash],
    );
    expect(stored.rows[0]?.code_hash).toBe(envelopeCodeHash(tokenHash, '123456'));
    expect(stored.rows[0]?.code_hash).not.toContain('123456');

    expect(await bed.client.request(EnvelopeFindByToken, { tokenHash })).toMatchObject({
      codeRequired: true,
    });
    // One at a time: a refusal made while the loop awaits another would go unhandled.
    for (const request of [
      () => bed.client.request(EnvelopeRecordView, { tokenHash, ...act }),
      () => bed.client.request(EnvelopeApprove, { tokenHash, ...act }),
      () => bed.client.request(EnvelopeDecline, { tokenHash, ...act, reason: 'no' }),
    ]) {
      await expect(request()).rejects.toMatchObject({ code: 'permission_denied' });
    }

    expect(await bed.client.request(EnvelopeVerifyCode, { tokenHash, code: '654321', ...act })).toEqual({
      outcome: 'wrong',
      attemptsLeft: 4,
    });
    expect(await bed.client.request(EnvelopeVerifyCode, { tokenHash, code: '123456', ...act })).toEqual({
      outcome: 'verified',
      verifiedAt: clock.toISOString(),
    });
    expect(await bed.client.request(EnvelopeFindByToken, { tokenHash })).toMatchObject({
      codeRequired: false,
    });
    // Verified: a second try has nothing to unlock.
    await expect(
      bed.client.request(EnvelopeVerifyCode, { tokenHash, code: '123456', ...act }),
    ).rejects.toMatchObject({ code: 'conflict' });
    await bed.client.request(EnvelopeRecordView, { tokenHash, ...act });
    await bed.client.request(EnvelopeApprove, { tokenHash, ...act });

    const story = await storyOf(created.envelopeId);
    expect(story.map((e) => e.event)).toEqual(
      expect.arrayContaining(['code-wrong', 'code-verified', 'viewed', 'approved']),
    );
    expect(story.find((e) => e.event === 'code-verified')).toMatchObject({
      ip_address: act.ipAddress,
      user_agent: act.userAgent,
    });

    // A recipient without requireEmailCode needs no code, and a code sent for them is not kept.
    const bob = await linkWithCode(idOf(created, 'Bob'));
    expect(bob.reply.codeExpiresAt).toBeUndefined();
    expect(await bed.client.request(EnvelopeFindByToken, { tokenHash: bob.tokenHash })).toMatchObject({
      codeRequired: false,
    });
    await expect(
      bed.client.request(EnvelopeVerifyCode, { tokenHash: bob.tokenHash, code: '123456', ...act }),
    ).rejects.toMatchObject({ code: 'conflict' });
    await bed.client.request(EnvelopeApprove, { tokenHash: bob.tokenHash, ...act });

    // The certificate lists the code's verification with time, IP and user agent.
    await expect.poll(() => certificates.has(created.envelopeId), { timeout: 15_000 }).toBe(true);
    const ann = certificates.get(created.envelopeId)?.find((r) => r.name === 'Ann');
    expect(ann?.events.find((e) => e.event === 'code-verified')).toEqual({
      event: 'code-verified',
      at: clock.toISOString(),
      ...act,
    });
    expect(ann?.events.map((e) => e.event)).not.toContain('code-wrong');
  });

  it('refuses an expired code, and a new one works for 10 minutes again', async () => {
    clock = new Date();
    const created = await create([approver('Ann')]);
    const { tokenHash } = await linkWithCode(idOf(created, 'Ann'));
    clock = new Date(clock.getTime() + 10 * 60_000 + 1);
    expect(await bed.client.request(EnvelopeVerifyCode, { tokenHash, code: '123456', ...act })).toEqual({
      outcome: 'expired',
    });
    await bed.client.request(EnvelopeSetCode, {
      tokenHash,
      codeHash: envelopeCodeHash(tokenHash, '777777'),
      eventId: randomUUID(),
    });
    // The old code is gone with the new one.
    expect(await bed.client.request(EnvelopeVerifyCode, { tokenHash, code: '123456', ...act })).toMatchObject(
      {
        outcome: 'wrong',
      },
    );
    clock = new Date(clock.getTime() + 9 * 60_000);
    expect(await bed.client.request(EnvelopeVerifyCode, { tokenHash, code: '777777', ...act })).toMatchObject(
      {
        outcome: 'verified',
      },
    );
  });

  it('locks the code after 5 wrong tries, even the right one; a new code starts the tries again', async () => {
    clock = new Date();
    const created = await create([approver('Ann')]);
    const { tokenHash } = await linkWithCode(idOf(created, 'Ann'));
    const left: unknown[] = [];
    for (let i = 0; i < 5; i++) {
      left.push(await bed.client.request(EnvelopeVerifyCode, { tokenHash, code: '000000', ...act }));
    }
    expect(left).toEqual([
      { outcome: 'wrong', attemptsLeft: 4 },
      { outcome: 'wrong', attemptsLeft: 3 },
      { outcome: 'wrong', attemptsLeft: 2 },
      { outcome: 'wrong', attemptsLeft: 1 },
      { outcome: 'locked' },
    ]);
    expect(await bed.client.request(EnvelopeVerifyCode, { tokenHash, code: '123456', ...act })).toEqual({
      outcome: 'locked',
    });
    await expect(bed.client.request(EnvelopeApprove, { tokenHash, ...act })).rejects.toMatchObject({
      code: 'permission_denied',
    });
    await bed.client.request(EnvelopeSetCode, {
      tokenHash,
      codeHash: envelopeCodeHash(tokenHash, '222222'),
      eventId: randomUUID(),
    });
    expect(await bed.client.request(EnvelopeVerifyCode, { tokenHash, code: '222222', ...act })).toMatchObject(
      {
        outcome: 'verified',
      },
    );
  });

  it('queues a new code at most 5 times an hour per link, without the token in the event', async () => {
    clock = new Date();
    const created = await create([approver('Ann')]);
    const { tokenHash } = await linkWithCode(idOf(created, 'Ann'));
    const left: number[] = [];
    for (let i = 0; i < 5; i++) {
      left.push((await bed.client.request(EnvelopeRequestCode, { tokenHash })).requestsLeft);
    }
    expect(left).toEqual([4, 3, 2, 1, 0]);
    await expect(bed.client.request(EnvelopeRequestCode, { tokenHash })).rejects.toMatchObject({
      code: 'rate_limited',
    });
    const { rows } = await db.query<{ payload: Record<string, unknown> }>(
      `select payload from documents.outbox where subject = 'events.envelope.code-requested'
       and payload->>'envelopeId' = $1`,
      [created.envelopeId],
    );
    expect(rows).toHaveLength(5);
    // The relay publishes them (it sends only the subjects it knows).
    await expect
      .poll(
        async () =>
          (
            await db.query(
              `select 1 from documents.outbox where subject = 'events.envelope.code-requested'
               and payload->>'envelopeId' = $1 and published_at is not null`,
              [created.envelopeId],
            )
          ).rowCount,
        { timeout: 10_000 },
      )
      .toBe(5);
    expect(rows[0]?.payload).toMatchObject({
      tokenHash,
      recipient: { recipientId: idOf(created, 'Ann'), email: 'ann@example.com' },
    });
    // An hour after the first request the window starts again.
    clock = new Date(clock.getTime() + 60 * 60_000);
    expect(await bed.client.request(EnvelopeRequestCode, { tokenHash })).toMatchObject({ requestsLeft: 4 });

    const turn = await db.query<{ payload: Record<string, unknown> }>(
      `select payload from documents.outbox where subject = 'events.envelope.recipient-turn'
       and payload->>'envelopeId' = $1`,
      [created.envelopeId],
    );
    expect(turn.rows[0]?.payload).toMatchObject({ requireEmailCode: true });
    const got = await bed.client.request(EnvelopeGet, {
      accountId: (await bed.client.request(EnvelopeFindByToken, { tokenHash })).accountId,
      envelopeId: created.envelopeId,
    });
    expect(got.recipients[0]?.requireEmailCode).toBe(true);
  });

  it('refuses a signer’s claim until the code is verified', async () => {
    clock = new Date();
    const created = await create([
      {
        name: 'Sam',
        email: 'sam@example.com',
        role: 'signer',
        order: 1,
        requireEmailCode: true,
        fields: [{ type: 'signature', page: 0, x: 10, y: 10, width: 30 }],
      },
    ]);
    const { tokenHash } = await linkWithCode(idOf(created, 'Sam'));
    await expect(bed.client.request(EnvelopeClaim, { tokenHash })).rejects.toMatchObject({
      code: 'permission_denied',
    });
    await bed.client.request(EnvelopeVerifyCode, { tokenHash, code: '123456', ...act });
    expect(await bed.client.request(EnvelopeClaim, { tokenHash })).toMatchObject({ outcome: 'claimed' });
  });
});
