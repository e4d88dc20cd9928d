import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { inkAt, makePdf, makePng, pdfSig, renderPage, runPdfTool } from '@esign/testing';
import { auth, baseUrl, createAccount, errorOf, signForm, type TestAccount } from './harness';
import { randomUUID } from 'node:crypto';
import { connect } from 'nats';
import { inject } from 'vitest';
import {
  allMail,
  mailTo,
  newRecipient,
  pageCall,
  setClockOffset,
  waitForMail,
  type Mail,
} from './send-harness';

const stack = inject('stack');

/**
 * Publishes the stored `events.envelope.recipient-turn` of a recipient again under a new message ID (so
 * JetStream keeps it): to the mailer it is the same event delivered twice.
 */
const republishTurnEvent = async (recipientEmail: string): Promise<boolean> => {
  const nc = await connect({ servers: stack.natsUrl });
  try {
    const jsm = await nc.jetstreamManager();
    const streamName = `${stack.busPrefix.replace(/[^A-Za-z0-9_-]/g, '_')}EVENTS`;
    const subject = `${stack.busPrefix}events.envelope.recipient-turn`;
    const info = await jsm.streams.info(streamName);
    for (let seq = info.state.last_seq; seq >= info.state.first_seq; seq--) {
      const message = await jsm.streams.getMessage(streamName, { seq }).catch(() => undefined);
      if (!message || message.subject !== subject) continue;
      const event = JSON.parse(new TextDecoder().decode(message.data)) as { recipient?: { email?: string } };
      if (event.recipient?.email !== recipientEmail) continue;
      await nc.jetstream().publish(subject, message.data, { msgID: randomUUID() });
      return true;
    }
    return false;
  } finally {
    await nc.close();
  }
};

/**
 * Envelopes end to end, through HTTP, the SMTP server's mailbox and the real PDF tools: a signer in
 * group 1, two parallel signers in group 2, an approver in group 3 and someone in copy. The order is the
 * server's: group 2 has no email (so no link) until group 1 signed; the two of group 2 sign at the same
 * instant; the cc gets the completed document only after the approver approved.
 */

let business: TestAccount;
let pdf: Buffer;
let png: string;
let browser: Browser;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  business = await createAccount('business');
  pdf = await makePdf({ pages: 2, text: 'Envelope agreement' });
  png = (await makePng()).toString('base64');
});
afterAll(async () => {
  await browser.close();
});

interface Envelope {
  envelopeId: string;
  auditId: string;
  status: string;
  revision: number;
  currentOrder: number | null;
  fileHash: string | null;
  recipients: {
    recipientId: string;
    email: string;
    role: string;
    order: number;
    status: string;
    actedAt: string | null;
  }[];
}

const createEnvelope = (
  recipients: unknown[],
  fields: Record<string, string | number | object> = {},
  headers = {},
) =>
  fetch(`${baseUrl}/api/v1/envelopes`, {
    method: 'POST',
    headers: { ...auth(business.apiKey), ...headers },
    body: signForm({
      file: { bytes: pdf, name: 'agreement.pdf', type: 'application/pdf' },
      fields: { recipients, ...fields },
    }),
  });

const getEnvelope = async (id: string): Promise<Envelope> => {
  const res = await fetch(`${baseUrl}/api/v1/envelopes/${id}`, { headers: auth(business.apiKey) });
  expect(res.status).toBe(200);
  return (await res.json()) as Envelope;
};

const waitForEnvelope = async (id: string, predicate: (e: Envelope) => boolean, timeoutMs = 30_000) => {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const envelope = await getEnvelope(id);
    if (predicate(envelope)) return envelope;
    if (Date.now() > until) throw new Error(`envelope ${id} did not get there: ${JSON.stringify(envelope)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
};

/** The envelope link in an email: `<gateway>/e/<token>`. */
const envelopeLinkIn = (mail: Mail | undefined): { url: string; token: string } => {
  if (!mail) throw new Error('no email');
  const match = /(https?:\/\/[^\s"<>]+\/e\/([A-Za-z0-9_-]{43}))/.exec(mail.text);
  if (!match?.[1] || !match[2]) throw new Error(`no envelope link in: ${mail.text}`);
  return { url: match[1], token: match[2] };
};

/** The first email to `address` carrying an envelope link. */
const linkFor = async (address: string) => {
  const mails = await waitForMail(address, undefined, 1, 30_000);
  return envelopeLinkIn(mails.find((m) => /\/e\/[A-Za-z0-9_-]{43}/.test(m.text)));
};

const hasLink = async (address: string) =>
  (await mailTo(address)).some((m) => /\/e\/[A-Za-z0-9_-]{43}/.test(m.text));

/** How many events of `subject` the durable stream holds for `envelopeId`. */
const countEvents = async (subject: string, envelopeId: string): Promise<number> => {
  const nc = await connect({ servers: stack.natsUrl });
  try {
    const jsm = await nc.jetstreamManager();
    const streamName = `${stack.busPrefix.replace(/[^A-Za-z0-9_-]/g, '_')}EVENTS`;
    const info = await jsm.streams.info(streamName);
    let count = 0;
    for (let seq = info.state.first_seq; seq <= info.state.last_seq; seq++) {
      const message = await jsm.streams.getMessage(streamName, { seq }).catch(() => undefined);
      if (message?.subject !== `${stack.busPrefix}${subject}`) continue;
      const event = JSON.parse(new TextDecoder().decode(message.data)) as { envelopeId?: string };
      if (event.envelopeId === envelopeId) count += 1;
    }
    return count;
  } finally {
    await nc.close();
  }
};

const typed = (name: string) => ({ mode: 'type', typedName: name, color: '#1e3a8a' });
const sig = (page: number, x: number, y: number) => ({ type: 'signature', page, x, y, width: 25 });

describe('envelopes, end to end', () => {
  it('signer, two parallel signers, an approver and a cc: order enforced, concurrent signing, one final document', async () => {
    const [s1, s2a, s2b, approver, cc] = [
      newRecipient(),
      newRecipient(),
      newRecipient(),
      newRecipient(),
      newRecipient(),
    ];
    const res = await createEnvelope(
      [
        {
          name: 'Ann First',
          email: s1,
          role: 'signer',
          order: 1,
          fields: [
            sig(0, 10, 70),
            { type: 'date', page: 0, x: 60, y: 70, width: 20 },
            { type: 'name', page: 0, x: 60, y: 75, width: 30 },
            { type: 'text', page: 0, x: 60, y: 80, width: 30, label: 'City' },
            { type: 'checkbox', page: 0, x: 60, y: 86, width: 3, label: 'I agree' },
          ],
        },
        { name: 'Ben Second', email: s2a, role: 'signer', order: 2, fields: [sig(1, 10, 20)] },
        {
          name: 'Cleo Second',
          email: s2b,
          role: 'signer',
          order: 2,
          fields: [sig(1, 10, 50), { type: 'initials', page: 0, x: 85, y: 5, width: 10 }],
        },
        { name: 'Dan Approver', email: approver, role: 'approver', order: 3 },
        { name: 'Eve Copy', email: cc, role: 'cc', order: 1 },
      ],
      { subject: 'Please sign: the agreement', message: 'Hello all' },
    );
    expect(res.status, await res.clone().text()).toBe(201);
    const created = (await res.json()) as Envelope;
    expect(created.envelopeId).toMatch(/^env_[A-Za-z0-9]{24}$/);
    expect(created.status).toBe('pending');
    expect(created.recipients.map((r) => [r.email, r.status])).toEqual([
      [s1, 'notified'],
      [s2a, 'waiting'],
      [s2b, 'waiting'],
      [approver, 'waiting'],
      [cc, 'waiting'],
    ]);

    // Group 1's link arrives; group 2, the approver and the cc get nothing yet.
    const link1 = await linkFor(s1);
    expect(link1.url.startsWith(`${baseUrl}/e/`)).toBe(true);
    // A guessed link works for nobody.
    expect((await pageCall('/envelope/api/recipient', 'A'.repeat(43))).status).toBe(404);
    // Before anyone signed, the sender's download is a copy marked as not complete.
    const early = await fetch(`${baseUrl}/api/v1/envelopes/${created.envelopeId}/document`, {
      headers: auth(business.apiKey),
    });
    expect(early.status).toBe(200);
    expect(early.headers.get('x-complete')).toBe('false');
    const earlyText = await runPdfTool('pdftotext', ['{file}', '-'], Buffer.from(await early.arrayBuffer()));
    expect(earlyText.stdout).toContain('NOT COMPLETE');

    const view = await pageCall('/envelope/api/recipient', link1.token);
    expect(view.status).toBe(200);
    const recipientView = (await view.json()) as {
      recipient: { fields: unknown[] };
      others: { name: string }[];
    };
    expect(recipientView.recipient.fields).toHaveLength(5);
    expect(recipientView.others.map((o) => o.name)).toContain('Ben Second');
    expect(JSON.stringify(recipientView.others)).not.toContain(s2a);
    expect((await pageCall('/envelope/api/view', link1.token, {})).status).toBe(200);

    // A required field left empty: 400 naming it, nothing signed.
    const empty = await pageCall('/envelope/api/sign', link1.token, {
      signature: typed('Ann First'),
      values: { '4': true },
    });
    expect(empty.status).toBe(400);
    expect(await errorOf(empty)).toContain('fields[3] (City)');
    expect(await hasLink(s2a)).toBe(false);
    expect(await hasLink(s2b)).toBe(false);

    // Ann signs on the page in Chromium: draws her signature, fills the city, ticks the box, finishes.
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const foreign: string[] = [];
    page.on('request', (request) => {
      const u = request.url();
      if (!u.startsWith(baseUrl) && !u.startsWith('data:') && !u.startsWith('blob:')) foreign.push(u);
    });
    await page.goto(link1.url);
    await page.locator('[data-field="3"] input').waitFor();
    // The document's own two pages, not the certificate of completion's (empty until completion).
    expect(await page.locator('.pdf-page').count()).toBe(2);
    await page.locator('[data-field="3"] input').fill('Lisbon');
    await page.locator('[data-field="4"] input[type=checkbox]').check();
    const canvas = page.locator('#signature-canvas');
    await canvas.scrollIntoViewIfNeeded();
    const area = await canvas.boundingBox();
    if (!area) throw new Error('no signature canvas');
    await page.mouse.move(area.x + area.width * 0.1, area.y + area.height * 0.6);
    await page.mouse.down();
    for (let i = 1; i <= 20; i++) {
      await page.mouse.move(
        area.x + area.width * (0.1 + 0.04 * i),
        area.y + area.height * (0.6 - 0.3 * Math.sin(i / 2)),
        {
          steps: 2,
        },
      );
    }
    await page.mouse.up();
    await page.locator('#finish-button').click();
    await page.locator('#done-heading').filter({ hasText: 'Signed' }).waitFor({ timeout: 30_000 });
    expect(foreign).toEqual([]);
    await page.close();
    expect((await getEnvelope(created.envelopeId)).recipients[0]).toMatchObject({ status: 'signed' });
    // The link is used up.
    expect((await pageCall('/envelope/api/recipient', link1.token)).status).toBe(410);

    // Group 2's turn: both sign at the same instant, and both succeed.
    const [link2a, link2b] = await Promise.all([linkFor(s2a), linkFor(s2b)]);
    expect(await hasLink(approver)).toBe(false);
    const [r2a, r2b] = await Promise.all([
      pageCall('/envelope/api/sign', link2a.token, { signature: { mode: 'draw', imageBase64: png } }),
      pageCall('/envelope/api/sign', link2b.token, {
        signature: typed('Cleo Second'),
        initials: typed('CS'),
      }),
    ]);
    expect([r2a.status, r2b.status], `${await r2a.clone().text()} ${await r2b.clone().text()}`).toEqual([
      200, 200,
    ]);
    expect(await mailTo(cc)).toHaveLength(0);

    // The approver approves; then the envelope completes, once.
    const link3 = await linkFor(approver);
    const approved = await pageCall('/envelope/api/approve', link3.token, {});
    expect(approved.status, await approved.clone().text()).toBe(200);
    expect(await approved.json()).toMatchObject({ status: 'approved', completing: true });
    const done = await waitForEnvelope(created.envelopeId, (e) => e.status === 'completed');
    expect(done.revision).toBe(3);
    expect(done.fileHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(done.recipients.map((r) => r.status)).toEqual([
      'signed',
      'signed',
      'signed',
      'approved',
      'notified',
    ]);

    // The cc receives the completed document (attached), after completion only.
    const ccMails = await waitForMail(cc, undefined, 1, 30_000);
    expect(ccMails).toHaveLength(1);
    const attached = ccMails[0]?.parsed.attachments.find((a) => a.contentType === 'application/pdf');
    expect(attached).toBeDefined();

    const final = await fetch(`${baseUrl}/api/v1/envelopes/${created.envelopeId}/document`, {
      headers: auth(business.apiKey),
    });
    expect(final.headers.get('x-complete')).toBe('true');
    const bytes = Buffer.from(await final.arrayBuffer());
    expect(Buffer.from(attached?.content ?? []).equals(bytes)).toBe(true);

    // One digital signature per signer, plus the service's seal, all valid.
    const sigs = await pdfSig(bytes);
    expect(sigs.stdout.match(/Signature is Valid\./g) ?? []).toHaveLength(4);
    expect(sigs.stdout).not.toMatch(/Signature is Invalid/);
    // Each signed the field revision 0 made for it (form fill-in only: Acrobat keeps them valid).
    expect(sigs.stdout.match(/Signature Field Name: (r\d+f\d+|seal)$/gm) ?? []).toHaveLength(4);
    // Every filled value can be read; the certificate of completion names everyone.
    const text = (await runPdfTool('pdftotext', ['{file}', '-'], bytes)).stdout;
    for (const expected of [
      'Lisbon',
      'Ann First',
      'Ben Second',
      'Cleo Second',
      'Dan Approver',
      'Eve Copy',
      created.auditId,
    ]) {
      expect(text).toContain(expected);
    }
    expect(text).toMatch(/\d{4}-\d{2}-\d{2}/);
    // Ink in each signature box.
    const page0 = await renderPage(bytes, 0);
    const page1 = await renderPage(bytes, 1);
    expect(inkAt(page0, { x: 10, y: 70, width: 25, height: 5 })).toBeGreaterThan(0.01);
    expect(inkAt(page1, { x: 10, y: 20, width: 25, height: 5 })).toBeGreaterThan(0.01);
    expect(inkAt(page1, { x: 10, y: 50, width: 25, height: 5 })).toBeGreaterThan(0.01);

    // The public verification works on it: our document, every signature intact.
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), 'final.pdf');
    const verified = await fetch(`${baseUrl}/api/v1/verify`, { method: 'POST', body: form });
    expect(verified.status).toBe(200);
    const report = (await verified.json()) as {
      issued: { exactMatch: boolean; document: { auditId: string } | null };
      signatures: { cryptographicallyValid: boolean; digestMatches: boolean }[];
    };
    expect(report.issued.exactMatch).toBe(true);
    expect(report.issued.document?.auditId).toBe(created.auditId);
    expect(report.signatures).toHaveLength(4);
    expect(report.signatures.every((s) => s.cryptographicallyValid && s.digestMatches)).toBe(true);
    // Completed exactly once.
    expect(await countEvents('events.envelope.completed', created.envelopeId)).toBe(1);

    // The final document is an ordinary document of the account, under the envelope's audit ID.
    const doc = await fetch(`${baseUrl}/api/v1/documents/${created.auditId}`, {
      headers: auth(business.apiKey),
    });
    expect(doc.status).toBe(200);
    expect(((await doc.json()) as { fileHash: string }).fileHash).toBe(done.fileHash);
    // The sender and every recipient got the completed document; no link email went to the cc.
    expect((await mailTo(cc)).some((m) => /\/e\//.test(m.text))).toBe(false);
    expect(
      (await allMail()).filter(
        (m) => m.to.includes(business.email.toLowerCase()) && m.parsed.attachments.length > 0,
      ).length,
    ).toBeGreaterThan(0);
  }, 120_000);

  it('a decline in group 2 ends the envelope: every link dies, the sender and the signer before are told', async () => {
    const [s1, s2a, s2b] = [newRecipient(), newRecipient(), newRecipient()];
    const res = await createEnvelope([
      { name: 'Ann', email: s1, role: 'signer', order: 1, fields: [sig(0, 10, 10)] },
      { name: 'Ben', email: s2a, role: 'signer', order: 2, fields: [sig(0, 10, 40)] },
      { name: 'Cleo', email: s2b, role: 'signer', order: 2, fields: [sig(0, 10, 70)] },
    ]);
    expect(res.status).toBe(201);
    const { envelopeId } = (await res.json()) as Envelope;
    const link1 = await linkFor(s1);
    expect((await pageCall('/envelope/api/sign', link1.token, { signature: typed('Ann') })).status).toBe(200);
    const [link2a, link2b] = await Promise.all([linkFor(s2a), linkFor(s2b)]);
    const declined = await pageCall('/envelope/api/decline', link2a.token, { reason: 'Wrong start date' });
    expect(declined.status).toBe(200);
    const envelope = await waitForEnvelope(envelopeId, (e) => e.status === 'declined');
    expect(envelope).toMatchObject({ declineReason: 'Wrong start date' });
    expect((await pageCall('/envelope/api/recipient', link2b.token)).status).toBe(410);
    expect((await pageCall('/envelope/api/sign', link2b.token, { signature: typed('Cleo') })).status).toBe(
      410,
    );
    expect((await fetch(link2b.url)).status).toBe(410);
    // Ann (who signed) hears of it, with the reason.
    const told = await waitForMail(s1, undefined, 2, 30_000);
    expect(told.some((m) => m.text.includes('Wrong start date'))).toBe(true);
  }, 90_000);

  it('cancel ends it at once; a second cancel is 409; another account sees 404', async () => {
    const s1 = newRecipient();
    const res = await createEnvelope([
      { name: 'Ann', email: s1, role: 'signer', order: 1, fields: [sig(0, 10, 10)] },
    ]);
    const { envelopeId } = (await res.json()) as Envelope;
    const link1 = await linkFor(s1);
    const cancel = () =>
      fetch(`${baseUrl}/api/v1/envelopes/${envelopeId}/cancel`, {
        method: 'POST',
        headers: auth(business.apiKey),
      });
    const first = await cancel();
    expect(first.status).toBe(200);
    expect(((await first.json()) as Envelope).status).toBe('canceled');
    expect((await cancel()).status).toBe(409);
    expect((await pageCall('/envelope/api/recipient', link1.token)).status).toBe(410);
    const other = await createAccount('business');
    expect(
      (await fetch(`${baseUrl}/api/v1/envelopes/${envelopeId}`, { headers: auth(other.apiKey) })).status,
    ).toBe(404);
    const list = await fetch(`${baseUrl}/api/v1/envelopes?status=canceled`, {
      headers: auth(business.apiKey),
    });
    expect(((await list.json()) as { envelopes: Envelope[] }).envelopes.map((e) => e.envelopeId)).toContain(
      envelopeId,
    );
  }, 60_000);

  it('refuses a bad envelope at once, naming the recipient and field, and creates nothing', async () => {
    const [ann, ben, cy] = [newRecipient(), newRecipient(), newRecipient()];
    const before = await fetch(`${baseUrl}/api/v1/envelopes?limit=100`, { headers: auth(business.apiKey) });
    const countBefore = ((await before.json()) as { envelopes: unknown[] }).envelopes.length;
    const res = await createEnvelope([
      { name: 'Ann', email: ann, role: 'signer', order: 1, fields: [sig(0, 10, 10)] },
      { name: 'Ben', email: ben, role: 'signer', order: 2, fields: [sig(5, 10, 10)] },
    ]);
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toBe(
      'recipients[1].fields[0].page: page 5 does not exist (the document has 2 pages)',
    );
    const noSignature = await createEnvelope([
      { name: 'Cy', email: cy, role: 'signer', order: 1, fields: [] },
    ]);
    expect(await errorOf(noSignature)).toContain('recipients[0].fields');
    const notJson = await createEnvelope('[{' as unknown as unknown[]);
    expect(notJson.status).toBe(400);
    // No envelope, no email.
    const after = await fetch(`${baseUrl}/api/v1/envelopes?limit=100`, { headers: auth(business.apiKey) });
    expect(((await after.json()) as { envelopes: unknown[] }).envelopes).toHaveLength(countBefore);
    await new Promise((r) => setTimeout(r, 1_000));
    for (const address of [ann, ben, cy]) expect(await mailTo(address)).toHaveLength(0);
  });

  it('a redelivered turn event sends no second email (the mailer keeps one per event, address and kind)', async () => {
    const s1 = newRecipient();
    const res = await createEnvelope([
      { name: 'Ann', email: s1, role: 'signer', order: 1, fields: [sig(0, 10, 10)] },
    ]);
    expect(res.status).toBe(201);
    const first = await linkFor(s1);
    expect(await republishTurnEvent(s1)).toBe(true);
    // Long enough for the mailer to have consumed the redelivery (it answers within a second otherwise).
    await new Promise((r) => setTimeout(r, 3_000));
    expect(await mailTo(s1)).toHaveLength(1);
    // And the link of the one email still works.
    expect((await pageCall('/envelope/api/recipient', first.token)).status).toBe(200);
  });

  it("expiry (the store's clock moved a day on): the envelope expires, links answer 410, the sender is told", async () => {
    const [s1, s2] = [newRecipient(), newRecipient()];
    const res = await createEnvelope(
      [
        { name: 'Ann', email: s1, role: 'signer', order: 1, fields: [sig(0, 10, 10)] },
        { name: 'Ben', email: s2, role: 'signer', order: 2, fields: [sig(0, 10, 50)] },
      ],
      { expiresInDays: 1 },
    );
    const { envelopeId } = (await res.json()) as Envelope;
    const link1 = await linkFor(s1);
    expect((await pageCall('/envelope/api/sign', link1.token, { signature: typed('Ann') })).status).toBe(200);
    const link2 = await linkFor(s2);
    try {
      await setClockOffset(24 * 60 * 60_000 + 60_000);
      const expired = await waitForEnvelope(envelopeId, (e) => e.status === 'expired');
      expect(expired.recipients.map((r) => r.status)).toEqual(['signed', 'notified']);
      expect((await fetch(link2.url)).status).toBe(410);
      expect((await pageCall('/envelope/api/sign', link2.token, { signature: typed('Ben') })).status).toBe(
        410,
      );
      const told = await waitForMail(business.email, /^Expired: agreement\.pdf/, 1, 30_000);
      expect(told[0]?.text).toContain('Ben');
    } finally {
      await setClockOffset(0);
    }
    expect((await getEnvelope(envelopeId)).status).toBe('expired');
  }, 90_000);
});
