import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { inkAt, makeLargePdf, makePdf, pdfSig, renderPage, runPdfTool } from '@esign/testing';
import { EsignClient } from '../../libs/sdk/src/index.js';
import { auth, baseUrl, createAccount, errorOf, unacked, type TestAccount } from './harness';
import {
  linkIn,
  mailTo,
  newRecipient,
  republishRequestedEvent,
  setClockOffset,
  pageCall,
  send,
  stackLog,
  statusOf,
  waitForMail,
  waitForStatus,
  type SendResult,
} from './send-harness';

let browser: Browser;
let business: TestAccount;
let pdf: Buffer;

/** Screenshots of the page (desktop and phone), for a person to look at. */
const screenshotDir = process.env.E2E_SCREENSHOTS ?? tmpdir();

const POSITION = { x: 10, y: 70, page: 1, width: 30 };
const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

beforeAll(async () => {
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  business = await createAccount('business');
  pdf = await makePdf({ pages: 2, text: 'Service agreement' });
});
afterAll(async () => {
  await browser.close();
});

/** Sends `pdf` to a new recipient and returns the request and the link of its email. */
const sendAndReadLink = async (fields: Record<string, string | number | object> = {}) => {
  const recipient = newRecipient();
  const res = await send(business.apiKey, {
    pdf,
    recipientEmail: recipient,
    fields: { positions: [POSITION], ...fields },
  });
  expect(res.status).toBe(201);
  const sent = (await res.json()) as SendResult;
  const [mail] = await waitForMail(recipient, /^Please sign/);
  if (!mail) throw new Error('no email');
  return { recipient, sent, mail, link: linkIn(mail) };
};

/** A browser page on the signing link, with a watch for requests leaving the gateway. */
const openPage = async (url: string, viewport = { width: 1280, height: 900 }) => {
  const page = await browser.newPage({ viewport, hasTouch: viewport.width < 500 });
  const foreign: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => {
    const u = request.url();
    if (!u.startsWith(baseUrl) && !u.startsWith('data:') && !u.startsWith('blob:')) foreign.push(u);
  });
  page.on('pageerror', (err) => errors.push(err.message));
  const response = await page.goto(url);
  return { page, response, foreign, errors };
};

const drawSignature = async (page: Page) => {
  const canvas = page.locator('.sig-canvas');
  await canvas.scrollIntoViewIfNeeded();
  const box = await canvas.boundingBox();
  if (!box) throw new Error('no signature canvas');
  await page.mouse.move(box.x + box.width * 0.1, box.y + box.height * 0.6);
  await page.mouse.down();
  for (let i = 1; i <= 20; i++) {
    await page.mouse.move(
      box.x + box.width * (0.1 + 0.04 * i),
      box.y + box.height * (0.6 - 0.3 * Math.sin(i / 2)),
      { steps: 2 },
    );
  }
  await page.mouse.up();
};

describe('send for signing, end to end', () => {
  it('send, email, plain GET changes nothing, the page views, a drawn signature signs, the status and the documents agree', async () => {
    const { recipient, sent, mail, link } = await sendAndReadLink({
      subject: 'Please sign: the agreement',
      message: 'Hello <b>Grace</b>',
    });
    expect(sent).toMatchObject({ status: 'pending', recipientEmail: recipient });
    expect(sent.sendId).toMatch(/^send_[A-Za-z0-9]{24}$/);
    expect(sent.auditId).toMatch(/^ESG-/);
    expect(Object.keys(sent).sort()).toEqual(
      ['auditId', 'expiresAt', 'recipientEmail', 'sendId', 'sentAt', 'status'].sort(),
    );
    expect(mail.subject).toBe('Please sign: the agreement');
    expect(link.url.startsWith(`${baseUrl}/s/`)).toBe(true);
    // The sender's message is escaped in the HTML part.
    expect(String(mail.parsed.html)).toContain('Hello &lt;b&gt;Grace&lt;/b&gt;');

    // A mail scanner's GET shows the page and changes nothing.
    const scanned = await fetch(link.url);
    expect(scanned.status).toBe(200);
    expect(scanned.headers.get('content-security-policy')).toContain("default-src 'self'");
    expect(await statusOf(business.apiKey, sent.auditId)).toEqual({
      auditId: sent.auditId,
      status: 'pending',
      signerName: 'Grace Hopper',
      signerEmail: recipient,
      viewedAt: null,
    });

    const { page, response, foreign, errors } = await openPage(link.url);
    expect(response?.status()).toBe(200);
    await page.locator('.pdf-page').nth(1).waitFor();
    // The sender's message and who sent it, above the document, as text (the markup shown, not applied).
    expect(await page.locator('#sender-message').isVisible()).toBe(true);
    expect(await page.locator('#sender-message-from').textContent()).toBe(`Message from ${business.email}`);
    expect(await page.locator('#sender-message-text').textContent()).toBe('Hello <b>Grace</b>');
    expect(await page.locator('#sender-message-text b').count()).toBe(0);
    const messageBox = await page.locator('#sender-message').boundingBox();
    const firstPage = await page.locator('.pdf-page').first().boundingBox();
    expect(messageBox && firstPage && messageBox.y + messageBox.height <= firstPage.y).toBe(true);
    await page.screenshot({ path: `${screenshotDir}/signing-desktop-message.png` });
    expect(await page.locator('.pdf-page').count()).toBe(2);
    // The box sits where the position says, on the second page.
    const pageBox = await page.locator('.pdf-page').nth(1).boundingBox();
    const sigBox = await page.locator('.pdf-page').nth(1).locator('.sig-box').boundingBox();
    if (!pageBox || !sigBox) throw new Error('no page or box');
    expect((sigBox.x - pageBox.x) / pageBox.width).toBeCloseTo(0.1, 1);
    expect((sigBox.y - pageBox.y) / pageBox.height).toBeCloseTo(0.7, 1);
    expect(sigBox.width / pageBox.width).toBeCloseTo(0.3, 1);
    const viewed = await waitForStatus(business.apiKey, sent.sendId, (s) => s.viewedAt !== null);
    expect(viewed.status).toBe('pending');
    expect(typeof viewed.viewedAt).toBe('string');

    await page.locator('#sign-panel').waitFor();
    expect(await page.locator('#signer-name').inputValue()).toBe('Grace Hopper');
    await drawSignature(page);
    await page.locator('#sign-button').click();
    await page.locator('#done').waitFor({ timeout: 60_000 });
    expect(await page.locator('#done-heading').textContent()).toBe('Signed');
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();

    const signed = await waitForStatus(business.apiKey, sent.auditId, (s) => s.status === 'signed');
    expect(Object.keys(signed).sort()).toEqual(
      ['auditId', 'fileHash', 'signedAt', 'signerEmail', 'signerName', 'status'].sort(),
    );
    expect(signed).toMatchObject({ signerName: 'Grace Hopper', signerEmail: recipient });

    // The document is listed like any signed one, with the whole story in its audit log.
    const docRes = await fetch(`${baseUrl}/api/v1/documents/${sent.auditId}`, {
      headers: auth(business.apiKey),
    });
    expect(docRes.status).toBe(200);
    const doc = (await docRes.json()) as {
      fileHash: string;
      signerEmail: string;
      ipAddress: string;
      auditLog: { event: string; details: Record<string, unknown> }[];
    };
    expect(doc.fileHash).toBe(signed.fileHash);
    expect(doc.signerEmail).toBe(recipient);
    const events = doc.auditLog.map((e) => e.event);
    for (const event of ['signing.sent', 'signing.emailed', 'signing.viewed'])
      expect(events).toContain(event);
    const view = doc.auditLog.find((e) => e.event === 'signing.viewed');
    expect(JSON.stringify(view?.details)).toContain('HeadlessChrome');
    const list = (await (
      await fetch(`${baseUrl}/api/v1/documents?search=contract`, { headers: auth(business.apiKey) })
    ).json()) as { documents: { auditId: string }[] };
    expect(list.documents.map((d) => d.auditId)).toContain(sent.auditId);

    // The status's fileHash is the SHA-256 of the signed PDF downloaded from the documents API.
    const download = await fetch(`${baseUrl}/api/v1/documents/${sent.auditId}/pdf`, {
      headers: auth(business.apiKey),
    });
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toMatch(/^application\/pdf/);
    expect(download.headers.get('content-disposition')).toMatch(/^attachment; filename=".*-signed\.pdf"/);
    expect(download.headers.get('x-audit-id')).toBe(sent.auditId);
    expect(download.headers.get('x-file-hash')).toBe(signed.fileHash);
    const signedPdf = new Uint8Array(await download.arrayBuffer());
    expect(sha256(signedPdf)).toBe(signed.fileHash);
    // The SDK's downloadDocument gets the same bytes; another account's key gets 404.
    const viaSdk = await new EsignClient({ apiKey: business.apiKey, baseUrl }).downloadDocument(sent.auditId);
    expect(sha256(viaSdk.bytes)).toBe(signed.fileHash);
    expect(viaSdk).toMatchObject({ auditId: sent.auditId, fileHash: signed.fileHash });
    const stranger = await createAccount('business');
    const foreign404 = await fetch(`${baseUrl}/api/v1/documents/${sent.auditId}/pdf`, {
      headers: auth(stranger.apiKey),
    });
    expect(foreign404.status).toBe(404);
    expect(await errorOf(foreign404)).toBe('document not found');

    // The signed PDF as emailed to the recipient (and the sender) is the same document.
    const [done] = await waitForMail(recipient, /^Signed:/);
    const attachment = done?.parsed.attachments.find((a) => a.contentType === 'application/pdf');
    if (!attachment) throw new Error('no signed PDF attached');
    expect(sha256(new Uint8Array(attachment.content))).toBe(signed.fileHash);
    const senderCopies = async () =>
      (await mailTo(business.email, /^Signed:/)).filter((m) => m.text.includes(sent.auditId));
    await expect.poll(async () => (await senderCopies()).length, { timeout: 15_000 }).toBeGreaterThan(0);
    // Each party gets the signed PDF exactly once: asserted once the mailer has handled every
    // completed event published so far.
    await expect.poll(() => unacked('mailer-signing-completed'), { timeout: 15_000 }).toBe(0);
    const senderMail = await senderCopies();
    expect(senderMail).toHaveLength(1);
    expect(sha256(new Uint8Array(senderMail[0]?.parsed.attachments[0]?.content ?? []))).toBe(signed.fileHash);
    expect(await mailTo(recipient, /^Signed:/)).toHaveLength(1);
    expect((await pdfSig(signedPdf)).stdout).toContain('Signature Validation: Signature is Valid.');
    const text = (await runPdfTool('pdftotext', ['{file}', '-'], signedPdf)).stdout;
    expect(text).toContain('Grace Hopper');
    expect(text).toContain(sent.auditId);
    // Ink where the position put the signature (page 2), none elsewhere on that page's lower half.
    const rendered = await renderPage(signedPdf, 1, 72);
    expect(inkAt(rendered, { x: 10, y: 70, width: 30, height: 7 })).toBeGreaterThan(0.01);
    expect(inkAt(rendered, { x: 55, y: 70, width: 30, height: 7 })).toBe(0);

    // The link is used up: the page says so (410), and nothing can be signed or viewed with it.
    const again = await fetch(link.url);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('already been signed');
    const resign = await pageCall('/signing/api/sign', link.token, {
      signerName: 'Grace Hopper',
      signature: { mode: 'type', typedName: 'Grace', color: '#111827' },
    });
    expect(resign.status).toBe(410);

    // The token never reached a log line; the page's path is logged redacted.
    const log = await stackLog();
    expect(log).toContain('/s/:token');
    expect(log).not.toContain(link.token);
  });

  it('a double submit signs once; bad input gets clear messages, never a 500', async () => {
    const { sent, link } = await sendAndReadLink();
    const typed = {
      signerName: 'Grace Hopper',
      signature: { mode: 'type', typedName: 'Grace H', color: '#1e3a8a' },
    };

    const empty = await pageCall('/signing/api/sign', link.token, {
      signerName: 'Grace Hopper',
      signature: { mode: 'draw', imageBase64: '' },
    });
    expect(empty.status).toBe(400);
    expect(await errorOf(empty)).toContain('draw or type your signature');
    const noName = await pageCall('/signing/api/sign', link.token, { ...typed, signerName: '  ' });
    expect(noName.status).toBe(400);
    expect(await errorOf(noName)).toContain('confirm your full name');
    const noReason = await pageCall('/signing/api/decline', link.token, { reason: ' ' });
    expect(noReason.status).toBe(400);
    expect(await errorOf(noReason)).toContain('reason is required');
    const notPng = await pageCall('/signing/api/sign', link.token, {
      signerName: 'Grace Hopper',
      signature: { mode: 'draw', imageBase64: Buffer.from('hello').toString('base64') },
    });
    expect(notPng.status).toBe(400);

    // A PNG the signer cannot read fails inside the sign workflow: the claim is released, so the
    // recipient can sign at once afterwards (below), not after the claim's timeout.
    const broken = await pageCall('/signing/api/sign', link.token, {
      signerName: 'Grace Hopper',
      signature: {
        mode: 'draw',
        imageBase64: Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(64, 7)]).toString(
          'base64',
        ),
      },
    });
    expect(broken.status).toBe(400);
    expect(await errorOf(broken)).toMatch(/signature/i);

    const answers = await Promise.all([
      pageCall('/signing/api/sign', link.token, typed),
      pageCall('/signing/api/sign', link.token, typed),
      pageCall('/signing/api/sign', link.token, typed),
    ]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    for (const s of statuses.filter((x) => x !== 200)) expect([409, 410]).toContain(s);
    for (const a of answers.filter((x) => x.status === 409)) {
      expect(await errorOf(a)).toContain('another tab');
    }
    const list = (await (
      await fetch(`${baseUrl}/api/v1/documents?limit=100`, { headers: auth(business.apiKey) })
    ).json()) as { documents: { auditId: string }[] };
    expect(list.documents.filter((d) => d.auditId === sent.auditId)).toHaveLength(1);
    expect((await statusOf(business.apiKey, sent.auditId)).status).toBe('signed');
  });

  it('decline from the page with a required reason: the sender learns why, the link ends', async () => {
    const { sent, link } = await sendAndReadLink();
    const { page } = await openPage(link.url, { width: 390, height: 844 });
    await page.locator('#sign-panel').waitFor();
    await page.locator('#decline-open').click();
    await page.locator('#decline-button').click();
    expect(await page.locator('#decline-error').textContent()).toContain('reason is required');
    await page.locator('#decline-reason').fill('The amount in section 2 is wrong.');
    await page.locator('#decline-button').click();
    await page.locator('#done').waitFor();
    expect(await page.locator('#done-heading').textContent()).toBe('Declined');
    await page.close();

    const status = await statusOf(business.apiKey, sent.auditId);
    expect(status).toEqual({
      auditId: sent.auditId,
      status: 'declined',
      declinedAt: expect.any(String) as string,
      declineReason: 'The amount in section 2 is wrong.',
    });
    const [told] = await waitForMail(business.email, /^Declined:/);
    expect(told?.text).toContain('The amount in section 2 is wrong.');
    const again = await fetch(link.url);
    expect(again.status).toBe(410);
    expect(await again.text()).toContain('declined');
  });
});

describe('POST /api/v1/send', () => {
  it('is Business-only, PDF-only, checks positions against the pages at once, and a replay sends no second email', async () => {
    const free = await createAccount('free');
    const recipient = newRecipient();
    const refused = await send(free.apiKey, { pdf, recipientEmail: recipient });
    expect(refused.status).toBe(403);

    const tooFar = await send(business.apiKey, {
      pdf,
      recipientEmail: recipient,
      fields: { positions: [{ x: 10, y: 10, page: 2, width: 20 }] },
    });
    expect(tooFar.status).toBe(400);
    expect(await errorOf(tooFar)).toBe('positions[0].page: page 2 does not exist (the document has 2 pages)');

    const png = await send(business.apiKey, {
      pdf: Buffer.from('\x89PNG\r\n\x1a\n0000000000000000'),
      recipientEmail: recipient,
    });
    expect(png.status).toBe(400);

    const key = `send-${Date.now()}`;
    const first = await send(business.apiKey, {
      pdf,
      recipientEmail: recipient,
      headers: { 'Idempotency-Key': key },
    });
    expect(first.status).toBe(201);
    const second = await send(business.apiKey, {
      pdf,
      recipientEmail: recipient,
      headers: { 'Idempotency-Key': key },
    });
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const a = (await first.json()) as SendResult;
    const b = (await second.json()) as SendResult;
    expect(b.sendId).toBe(a.sendId);
    const other = await send(business.apiKey, {
      pdf,
      recipientEmail: newRecipient(),
      headers: { 'Idempotency-Key': key },
    });
    expect(other.status).toBe(409);
    await waitForMail(recipient, /^Please sign/);
    // A later send's email means the outbox (which publishes in order) has published every request
    // before it; then, with nothing unacked, the mailer has handled them all.
    const later = newRecipient();
    expect((await send(business.apiKey, { pdf, recipientEmail: later })).status).toBe(201);
    await waitForMail(later, /^Please sign/);
    await expect.poll(() => unacked('mailer-signing-requested'), { timeout: 15_000 }).toBe(0);
    expect(await waitForMail(recipient, /^Please sign/)).toHaveLength(1);
  });

  it('takes a PDF just under 10 MB, and a page link through to its signing page', async () => {
    // 9 pages of 1 MiB noise: 9.0 MiB.
    const large = await makeLargePdf(9 * 1024 * 1024);
    expect(large.length).toBeLessThan(10 * 1024 * 1024);
    const recipient = newRecipient();
    const started = performance.now();
    const res = await send(business.apiKey, {
      pdf: large,
      recipientEmail: recipient,
      fields: { positions: [{ x: 10, y: 10, page: 8, width: 20 }] },
    });
    const ms = Math.round(performance.now() - started);
    expect(res.status).toBe(201);
    if (process.env.E2E_MEASURE) console.info(`POST /api/v1/send of ${large.length} bytes: ${ms} ms`);
    const link = linkIn((await waitForMail(recipient, /^Please sign/))[0]);
    const document = await pageCall('/signing/api/document', link.token);
    expect(document.status).toBe(200);
    expect(sha256(new Uint8Array(await document.arrayBuffer()))).toBe(sha256(large));
  });

  it('refuses a file over 10 MB with 413 without reading the rest', async () => {
    const big = Buffer.concat([pdf, Buffer.alloc(10 * 1024 * 1024 + 1)]);
    const res = await send(business.apiKey, { pdf: big, recipientEmail: newRecipient() });
    expect(res.status).toBe(413);
  });

  it("status: unknown and another account's IDs are 404; the sendId works as well as the audit ID", async () => {
    const { sent } = await sendAndReadLink();
    const other = await createAccount('business');
    const foreign = await fetch(`${baseUrl}/api/v1/status?auditId=${sent.auditId}`, {
      headers: auth(other.apiKey),
    });
    expect(foreign.status).toBe(404);
    const unknown = await fetch(`${baseUrl}/api/v1/status?auditId=ESG-AAAA-BBBB-CCCC`, {
      headers: auth(business.apiKey),
    });
    expect(unknown.status).toBe(404);
    const bySendId = await fetch(`${baseUrl}/api/v1/status?auditId=${sent.sendId}`, {
      headers: auth(business.apiKey),
    });
    expect(((await bySendId.json()) as { auditId: string }).auditId).toBe(sent.auditId);
  });
});

describe('links that end', () => {
  it('a tampered or malformed token is a 404 page and a 404 for the page calls', async () => {
    const { link } = await sendAndReadLink();
    const last = link.token.at(-1) === 'A' ? 'B' : 'A';
    const tampered = `${link.token.slice(0, -1)}${last}`;
    for (const token of [tampered, 'short', `${link.token}x`]) {
      const res = await fetch(`${baseUrl}/s/${token}`);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain('not valid');
      const call = await pageCall('/signing/api/request', token);
      expect(call.status).toBe(404);
    }
    // The real link still works.
    expect((await fetch(link.url)).status).toBe(200);
  });

  it('cancel: the link ends (410), the recipient is told, a second cancel is 409', async () => {
    const { recipient, sent, link } = await sendAndReadLink();
    const cancel = () =>
      fetch(`${baseUrl}/api/v1/send/${sent.sendId}/cancel`, {
        method: 'POST',
        headers: auth(business.apiKey),
      });
    const res = await cancel();
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ sendId: sent.sendId, status: 'canceled' });
    expect((await cancel()).status).toBe(409);
    expect(await statusOf(business.apiKey, sent.auditId)).toEqual({
      auditId: sent.auditId,
      status: 'canceled',
      canceledAt: expect.any(String) as string,
    });
    const page = await fetch(link.url);
    expect(page.status).toBe(410);
    expect(await page.text()).toContain('canceled');
    const sign = await pageCall('/signing/api/sign', link.token, {
      signerName: 'Grace Hopper',
      signature: { mode: 'type', typedName: 'Grace', color: '#111827' },
    });
    expect(sign.status).toBe(410);
    await waitForMail(recipient, /^Canceled:/);
    const other = await createAccount('business');
    const foreign = await fetch(`${baseUrl}/api/v1/send/${sent.sendId}/cancel`, {
      method: 'POST',
      headers: auth(other.apiKey),
    });
    expect(foreign.status).toBe(404);
  });

  it('resend: a new email with a new link; the old link is dead, the new one signs', async () => {
    const { recipient, sent, link } = await sendAndReadLink();
    const res = await fetch(`${baseUrl}/api/v1/send/${sent.sendId}/resend`, {
      method: 'POST',
      headers: auth(business.apiKey),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ sendId: sent.sendId, status: 'pending', expiresAt: sent.expiresAt });
    const mails = await waitForMail(recipient, /^Please sign/, 2);
    const fresh = linkIn(mails[1]);
    expect(fresh.token).not.toBe(link.token);
    expect((await fetch(link.url)).status).toBe(404);
    expect((await pageCall('/signing/api/request', link.token)).status).toBe(404);
    const signed = await pageCall('/signing/api/sign', fresh.token, {
      signerName: 'Grace Hopper',
      signature: { mode: 'type', typedName: 'Grace Hopper', color: '#14532d' },
    });
    expect(signed.status).toBe(200);
    expect((await statusOf(business.apiKey, sent.auditId)).status).toBe('signed');
  });

  it('expiry (document-store clock moved a day on): the page says so with 410, nothing signs, the sender is told', async () => {
    const { sent, link } = await sendAndReadLink({ expiresInDays: 1 });
    try {
      await setClockOffset(24 * 60 * 60_000 + 60_000);
      const expired = await waitForStatus(business.apiKey, sent.auditId, (s) => s.status === 'expired');
      expect(expired).toEqual({ auditId: sent.auditId, status: 'expired', expiredAt: sent.expiresAt });
      const page = await fetch(link.url);
      expect(page.status).toBe(410);
      expect(await page.text()).toContain('expired');
      const sign = await pageCall('/signing/api/sign', link.token, {
        signerName: 'Grace Hopper',
        signature: { mode: 'type', typedName: 'Grace', color: '#111827' },
      });
      expect(sign.status).toBe(410);
      expect(await errorOf(sign)).toContain('expired');
      await waitForMail(business.email, /^Expired unsigned:/);
    } finally {
      await setClockOffset(0);
    }
    // Final: back on real time it stays expired.
    expect((await statusOf(business.apiKey, sent.auditId)).status).toBe('expired');
  });

  it('a redelivered request event sends no second email, and the first link keeps working', async () => {
    const { recipient, sent, link } = await sendAndReadLink();
    const republished = await republishRequestedEvent(sent.sendId);
    expect(republished).toBe(true);
    // The mailer consumes it (its log says so) and sends nothing.
    const handledAgain = async () =>
      (await stackLog())
        .split('\n')
        .some((line) => line.includes('email already handled') && line.includes(sent.sendId));
    await expect.poll(handledAgain, { timeout: 10_000, interval: 200 }).toBe(true);
    expect(await mailTo(recipient, /^Please sign/)).toHaveLength(1);
    expect((await fetch(link.url)).status).toBe(200);
  });
});

describe('the signing page in a browser', () => {
  it('works on a phone, with touch, and with the keyboard alone (typed signature)', async () => {
    // A hostile message: shown as the text it is, never run or rendered as HTML, and it wraps.
    const hostile =
      '<script>window.__injected = 1</script><img src=x onerror="window.__injected = 2">\n' +
      `Second line & a long word: ${'W'.repeat(120)}`;
    const { sent, link } = await sendAndReadLink({ message: hostile });
    const { page, foreign, errors } = await openPage(link.url, { width: 390, height: 844 });
    await page.locator('#sign-panel').waitFor();
    // (A form field's line breaks travel as CRLF.)
    const shown = (await page.locator('#sender-message-text').textContent()) ?? '';
    expect(shown.replace(/\r\n/g, '\n')).toBe(hostile);
    expect(await page.locator('#sender-message-text *').count()).toBe(0);
    expect(await page.locator('script:not([src])').count()).toBe(0);
    expect(await page.evaluate('window.__injected')).toBeUndefined();
    // Its line break is kept.
    expect(await page.locator('#sender-message-text').innerText()).toContain('\nSecond line');
    // Nothing wider than the screen.
    const scrollWidth = await page.evaluate('document.documentElement.scrollWidth');
    expect(scrollWidth as number).toBeLessThanOrEqual(390);
    await page.screenshot({ path: `${screenshotDir}/signing-phone.png`, fullPage: true });

    // Keyboard only: Tab to the mode radios, choose Type, type a name, pick a colour, sign.
    await page.locator('#signer-name').focus();
    await page.keyboard.press('Tab'); // the Draw radio
    await page.keyboard.press('ArrowRight'); // Type
    expect(await page.locator('#sig-mode-type').isChecked()).toBe(true);
    await page.keyboard.press('Tab'); // colour group
    await page.keyboard.press('ArrowRight'); // Blue
    expect(await page.locator('#sig-color-1e3a8a').isChecked()).toBe(true);
    await page.keyboard.press('Tab'); // typed name field
    await page.keyboard.press('Control+A');
    await page.keyboard.type('Grace B. Hopper');
    await page.locator('#sign-button').focus();
    await page.keyboard.press('Enter');
    await page.locator('#done').waitFor({ timeout: 60_000 });
    expect(await page.locator('#done-heading').textContent()).toBe('Signed');
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
    expect((await statusOf(business.apiKey, sent.auditId)).status).toBe('signed');
  });

  it('draws with touch on a phone-sized screen', async () => {
    const { link } = await sendAndReadLink();
    const { page } = await openPage(link.url, { width: 390, height: 844 });
    await page.locator('#sign-panel').waitFor();
    // No message sent: no message box.
    expect(await page.locator('#sender-message').isHidden()).toBe(true);
    const canvas = page.locator('.sig-canvas');
    await canvas.scrollIntoViewIfNeeded();
    const box = await canvas.boundingBox();
    if (!box) throw new Error('no canvas');
    // A finger stroke, as pointer events of type touch.
    const cdp = await page.context().newCDPSession(page);
    const point = (t: number) => ({
      x: box.x + box.width * (0.1 + 0.8 * t),
      y: box.y + box.height * (0.5 + 0.3 * Math.sin(t * 6)),
    });
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [point(0)] });
    for (let i = 1; i <= 12; i++) {
      await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: [point(i / 12)] });
    }
    await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
    await page.locator('.sig-box img').first().waitFor();
    expect(await page.locator('.sig-hint').textContent()).toContain('Signature drawn');
    await page.screenshot({ path: `${screenshotDir}/signing-phone-drawn.png` });
    const desktop = await openPage(link.url);
    await desktop.page.locator('#sign-panel').waitFor();
    await desktop.page.screenshot({ path: `${screenshotDir}/signing-desktop.png`, fullPage: true });
    await desktop.page.close();
    await page.close();
  });
});

describe('the SDK', () => {
  it('sendForSigning, getSigningStatus, resendSend and cancelSend', async () => {
    const client = new EsignClient({ apiKey: business.apiKey, baseUrl });
    const recipient = newRecipient();
    const sent = await client.sendForSigning({
      file: pdf,
      fileName: 'sdk.pdf',
      recipientEmail: recipient,
      recipientName: 'Ada Lovelace',
      positions: [POSITION],
    });
    expect(sent.status).toBe('pending');
    // A retry under the same key (as the SDK's own retries send) answers the same request.
    const again = await client.sendForSigning(
      {
        file: pdf,
        fileName: 'sdk.pdf',
        recipientEmail: recipient,
        recipientName: 'Ada Lovelace',
        positions: [POSITION],
      },
      { idempotencyKey: 'sdk-send-key' },
    );
    expect(again.sendId).not.toBe(sent.sendId);
    const status = await client.getSigningStatus(sent.auditId);
    expect(status).toMatchObject({ status: 'pending', signerName: 'Ada Lovelace', viewedAt: null });
    expect((await client.getSigningStatus(sent.sendId)).auditId).toBe(sent.auditId);
    expect(await client.resendSend(sent.sendId)).toMatchObject({
      status: 'pending',
      expiresAt: sent.expiresAt,
    });
    expect(await client.cancelSend(sent.sendId)).toMatchObject({ status: 'canceled' });
    expect(await client.cancelSend(again.sendId)).toMatchObject({ status: 'canceled' });
    await expect(client.cancelSend(sent.sendId)).rejects.toMatchObject({ status: 409 });
  });
});
