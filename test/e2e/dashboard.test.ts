import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountPlanSet } from '@esign/contracts';
import { inkAt, makeJpeg, makePdf, pdfSig, renderPage } from '@esign/testing';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auth,
  baseUrl,
  createAccount,
  dashboardHeaders,
  errorOf,
  jsonInit,
  operatorBus,
  SESSION_COOKIE,
  sign,
  signForm,
  signUpAndIn,
  type SignedInUser,
} from './harness';
import {
  linkIn,
  mailTo,
  newRecipient,
  pageCall,
  send as sendForSigning,
  stackLog,
  waitForMail,
  type SendResult,
} from './send-harness';

// The dashboard (/dashboard) driven in Debian's Chromium through the whole e2e stack.

/** Screenshots of every view at desktop and phone widths, for a person to look at (not compared). */
const SHOTS = process.env.DASHBOARD_SCREENSHOTS ?? join(tmpdir(), 'esign-dashboard-screenshots');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

const typedSignature = {
  signerName: 'Ada Lovelace',
  signerEmail: 'ada@example.com',
  mode: 'type',
  typedName: 'Ada',
  positions: [{ x: 10, y: 10, page: 0, width: 20 }],
};

let browser: Browser;
let pdf: Buffer;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  pdf = await makePdf({ pages: 2, text: 'Dashboard test' });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});
afterAll(async () => {
  await browser?.close();
});

interface Watched {
  context: BrowserContext;
  page: Page;
  /** Console errors, page errors and requests to anywhere but the gateway. */
  problems: string[];
}

/** A fresh browser context (its own cookies) with a page that records errors and foreign requests. */
const openPage = async (viewport = DESKTOP, expectedStatuses: number[] = []): Promise<Watched> => {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    // A refused request is logged by Chromium as a console error; the test says which ones it expects.
    if (msg.type() === 'error' && !/Failed to load resource/.test(msg.text())) problems.push(msg.text());
  });
  page.on('response', (res) => {
    if (res.status() >= 400 && !expectedStatuses.includes(res.status()))
      problems.push(`${res.status()} ${res.url()}`);
  });
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(baseUrl) && !url.startsWith('data:') && !url.startsWith('blob:'))
      problems.push(`foreign request ${url}`);
  });
  return { context, page, problems };
};

/** A browser context signed in as `user` (its session cookie, as the browser would hold it). */
const openSignedIn = async (user: SignedInUser, viewport = DESKTOP, expectedStatuses: number[] = []) => {
  const watched = await openPage(viewport, expectedStatuses);
  await watched.context.addCookies([
    { name: SESSION_COOKIE, value: user.cookie.slice(SESSION_COOKIE.length + 1), url: baseUrl },
  ]);
  return watched;
};

const heading = (page: Page) => page.locator('main h1');

const shoot = async (page: Page, name: string): Promise<void> => {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
};

/** Nothing wider than the screen: the page never scrolls sideways. */
const expectNoSideScroll = async (page: Page): Promise<void> => {
  // (A string, evaluated in the page: this file is compiled without the DOM's types.)
  const { scroll, width } = await page.evaluate<{ scroll: number; width: number }>(
    '({ scroll: document.documentElement.scrollWidth, width: window.innerWidth })',
  );
  expect(scroll, 'page width').toBeLessThanOrEqual(width);
};

/**
 * Wait for a page to show something. Generous: sign-up and sign-in run scrypt, which takes a while on
 * a busy machine, and a signing goes through the whole stack.
 */
const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 20_000 });

const sha256 = (bytes: Buffer): string => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

const setPlan = async (email: string, plan: 'free' | 'pro' | 'business') => {
  await (await operatorBus()).request(AccountPlanSet, { email, plan });
};

/** POST /api/sign as the dashboard does (session cookie, Origin, CSRF token). */
const dashboardSign = (user: SignedInUser, name: string, headers: Record<string, string> = {}) =>
  fetch(`${baseUrl}/api/sign`, {
    method: 'POST',
    headers: { ...dashboardHeaders(user), ...headers },
    body: signForm({ file: { bytes: pdf, name }, fields: typedSignature }),
  });

/** The element that has the keyboard focus. */
const focused = (page: Page): Locator => page.locator(':focus');

/** Press Tab until `target` has the focus, as a keyboard user would (at most `max` presses). */
const tabTo = async (page: Page, target: Locator, max = 30): Promise<void> => {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if ((await target.and(focused(page)).count()) > 0) return;
  }
  throw new Error(`Tab never reached ${target.toString()}`);
};

describe('the dashboard', () => {
  it('is served at /dashboard with the page headers and sends signed-out visitors to sign-in', async () => {
    const res = await fetch(`${baseUrl}/dashboard`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await res.text();
    expect(html).not.toMatch(/https?:\/\//);

    const { page, context, problems } = await openPage(DESKTOP, [401]);
    await page.goto(`${baseUrl}/dashboard#/keys`);
    await poll(() => page.evaluate<string>('location.hash')).toBe('#/sign-in');
    await poll(() => heading(page).textContent()).toBe('Sign in');
    await shoot(page, 'sign-in-desktop');
    await page.setViewportSize(PHONE);
    await expectNoSideScroll(page);
    await shoot(page, 'sign-in-phone');
    // A wrong password is said plainly, and no session is made.
    await page.getByLabel('Email').fill(`nobody${Date.now()}@example.com`);
    await page.getByLabel('Password').fill('not a password at all');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await poll(() => page.getByRole('alert').textContent()).toBe('Wrong email or password.');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('signs up, creates a key, copies it from the one-time view, signs with it on /api/v1, revokes it with confirmation, and the key is refused', async () => {
    const { page, context, problems } = await openPage(DESKTOP, [401]);
    await page.goto(`${baseUrl}/dashboard`);
    await page.getByRole('link', { name: 'Create one' }).click();
    await poll(() => heading(page).textContent()).toBe('Create an account');
    await shoot(page, 'sign-up-desktop');
    const email = `ui${Date.now()}@example.com`;
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill('a long enough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await poll(() => heading(page).textContent()).toBe('Documents');
    await poll(() => page.locator('#account-email').textContent()).toBe(email);

    // Free: keys exist but /api/v1 refuses them; the operator moves the account to Business.
    await setPlan(email, 'business');
    await page.getByRole('link', { name: 'API keys' }).click();
    await poll(() => heading(page).textContent()).toBe('API keys');
    await page.getByLabel('Name').fill('e2e server');
    await page.getByRole('button', { name: 'Create key' }).click();
    const keyField = page.getByLabel('Your API key');
    await keyField.waitFor();
    const shown = await keyField.inputValue();
    expect(shown).toMatch(/^svc_live_[A-Za-z0-9]{32}$/);
    await shoot(page, 'keys-new-key-desktop');
    await page.getByRole('button', { name: 'Copy key' }).click();
    await poll(() => page.locator('.copy-status').textContent()).toBe('Copied to the clipboard.');
    expect(await page.evaluate<string>('navigator.clipboard.readText()')).toBe(shown);
    await page.getByRole('button', { name: 'Done: I have stored it' }).click();
    expect(await keyField.count()).toBe(0);
    // Never shown again: not after a reload either.
    await page.reload();
    await poll(() => page.locator('tr[data-key-id]').count()).toBe(1);
    expect(await page.content()).not.toContain(shown);
    expect(await page.locator('tbody').textContent()).toContain(shown.slice(0, 12));

    const signed = await sign(shown, { file: { bytes: pdf, name: 'api.pdf' }, fields: typedSignature });
    expect(signed.status).toBe(200);
    await signed.arrayBuffer();
    // Last used shows (it is recorded off the request path, so after a moment).
    await poll(async () => {
      await page.reload();
      await page.locator('tr[data-key-id]').waitFor();
      return page.locator('td[data-label="Last used"]').textContent();
    }).toMatch(/UTC$/);

    // Revoke asks first: Cancel (and Escape) leave the key alone.
    await page.getByRole('button', { name: 'Revoke e2e server' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await shoot(page, 'keys-revoke-dialog-desktop');
    await page.keyboard.press('Escape');
    await poll(() => dialog.count()).toBe(0);
    const stillWorks = await sign(shown, { file: { bytes: pdf, name: 'api.pdf' }, fields: typedSignature });
    expect(stillWorks.status).toBe(200);
    await stillWorks.arrayBuffer();
    await page.getByRole('button', { name: 'Revoke e2e server' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
    await poll(() => page.locator('td[data-label="Status"]').textContent()).toMatch(/^Revoked/);
    await poll(() => page.getByRole('status').first().textContent()).toContain('is revoked');
    await shoot(page, 'keys-desktop');
    await page.setViewportSize(PHONE);
    await expectNoSideScroll(page);
    await shoot(page, 'keys-phone');

    const refused = await sign(shown, { file: { bytes: pdf, name: 'api.pdf' }, fields: typedSignature });
    expect(refused.status).toBe(401);
    expect(await errorOf(refused)).toBe('Invalid API key');

    // Sign-out ends the session: the dashboard goes back to sign-in.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await poll(() => heading(page).textContent()).toBe('Sign in');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('signs from the dashboard on the Free plan (placed on the rendered page, typed signature) and the fourth document of the month is refused with a clear message', async () => {
    const user = await signUpAndIn();
    const { page, context, problems } = await openSignedIn(user, DESKTOP, [403]);
    await page.goto(`${baseUrl}/dashboard#/sign`);
    await poll(() => heading(page).textContent()).toBe('Sign a document');
    expect(await page.getByTestId('quota').textContent()).toContain('3 of 3 documents left');
    await page.getByLabel('PDF, PNG or JPEG').setInputFiles({
      name: 'contract.pdf',
      mimeType: 'application/pdf',
      buffer: pdf,
    });
    await page.locator('figure.pdf-page[data-page="1"]').waitFor({ timeout: 20_000 });
    // A click on the second page places the box there.
    const second = page.locator('figure.pdf-page[data-page="1"] .pdf-layer');
    await second.scrollIntoViewIfNeeded();
    const box = await second.boundingBox();
    if (!box) throw new Error('no second page');
    await second.click({ position: { x: box.width * 0.5, y: box.height * 0.5 } });
    expect(await page.getByLabel('Page', { exact: true }).inputValue()).toBe('1');
    expect(Number(await page.getByLabel('From the left (%)').inputValue())).toBe(35);
    await page.getByLabel("Signer's full name").fill('Grace Hopper');
    // The typed signature follows the name.
    expect(await page.getByLabel('Type your signature').inputValue()).toBe('Grace Hopper');
    await shoot(page, 'sign-desktop');
    await page.getByRole('button', { name: 'Sign document' }).click();
    const download = page.getByRole('link', { name: 'Download signed PDF' });
    await download.waitFor({ timeout: 30_000 });
    await shoot(page, 'sign-done-desktop');
    const auditId = (await page.locator('.message.success code').textContent()) ?? '';
    expect(auditId).toMatch(/^ESG-/);

    // The signed PDF downloads, and is the document of record (same hash, signer, placement page).
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    expect(file.suggestedFilename()).toBe('contract-signed.pdf');
    const bytes = await readFile(await file.path());
    const record = (await (
      await fetch(`${baseUrl}/api/documents/${auditId}`, { headers: { Cookie: user.cookie } })
    ).json()) as { fileHash: string; signerName: string; signerEmail: string; auditLog: { event: string }[] };
    expect(sha256(bytes)).toBe(record.fileHash);
    expect(record).toMatchObject({ signerName: 'Grace Hopper', signerEmail: user.email });
    // Placed on the second page (the audit log counts pages from 1).
    const applied = record.auditLog.find((e) => e.event === 'signature.applied') as
      { details: { pages?: string; mode?: string } } | undefined;
    expect(applied?.details).toMatchObject({ pages: '2', mode: 'type' });

    // Two more (the same endpoint the page uses), then the fourth is refused in the page.
    for (const name of ['two.pdf', 'three.pdf']) {
      const res = await dashboardSign(user, name);
      expect(res.status).toBe(201);
      await res.json();
    }
    await page.getByRole('button', { name: 'Sign document' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor({ timeout: 30_000 });
    const text = (await alert.textContent()) ?? '';
    expect(text).toContain('Not signed: this month’s documents are used up.');
    expect(text).toContain('free plan allows 3 documents a month');
    await poll(() => page.getByTestId('quota').textContent()).toContain('0 of 3 documents left');
    await shoot(page, 'sign-quota-desktop');
    await page.setViewportSize(PHONE);
    await expectNoSideScroll(page);
    await shoot(page, 'sign-quota-phone');

    const fourth = await dashboardSign(user, 'four.pdf');
    expect(fourth.status).toBe(403);
    expect(await errorOf(fourth)).toContain('3 documents a month');
    const list = (await (
      await fetch(`${baseUrl}/api/documents`, { headers: { Cookie: user.cookie } })
    ).json()) as { total: number };
    expect(list.total).toBe(3);

    // Plan & usage says so.
    await page.getByRole('link', { name: 'Plan & usage' }).click();
    await poll(() => heading(page).textContent()).toBe('Plan & usage');
    expect(await page.locator('.usage-figure').textContent()).toBe('3 of 3 documents used this month');
    expect(await page.getByTestId('plan-documents').textContent()).toBe('3');
    expect(await page.getByTestId('plan-api').textContent()).toMatch(/^No/);
    expect(await page.getByTestId('plan-file-size').textContent()).toBe('10 MB');
    await expectNoSideScroll(page);
    await shoot(page, 'plan-phone');
    await page.setViewportSize(DESKTOP);
    await shoot(page, 'plan-desktop');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('signs a JPEG on the Pro plan with a drawn signature placed by the position fields: the ink is where it was placed, and the seal verifies', async () => {
    const user = await signUpAndIn();
    await setPlan(user.email, 'pro');
    const { page, context, problems } = await openSignedIn(user, PHONE);
    await page.goto(`${baseUrl}/dashboard#/sign`);
    await poll(() => page.getByTestId('quota').textContent()).toContain('50 of 50 documents left');
    await page.getByLabel('PDF, PNG or JPEG').setInputFiles({
      name: 'photo.jpg',
      mimeType: 'image/jpeg',
      buffer: await makeJpeg({ width: 400, height: 300 }),
    });
    await page.locator('figure.pdf-page .pdf-layer').waitFor();
    await page.getByLabel('From the left (%)').fill('50');
    await page.getByLabel('From the top (%)').fill('55');
    await page.getByLabel('Width (% of the page)').fill('40');
    await page.getByLabel("Signer's full name").fill('Ada Lovelace');
    await page.getByRole('radio', { name: 'Draw' }).check();
    // A pen stroke across the pad (pointer events, as a finger or mouse makes them).
    const pad = page.locator('canvas.sig-canvas');
    await pad.scrollIntoViewIfNeeded();
    const area = await pad.boundingBox();
    if (!area) throw new Error('no signature pad');
    await page.mouse.move(area.x + area.width * 0.1, area.y + area.height * 0.5);
    await page.mouse.down();
    for (let i = 1; i <= 16; i++) {
      const t = i / 16;
      await page.mouse.move(
        area.x + area.width * (0.1 + 0.8 * t),
        area.y + area.height * (0.5 + 0.3 * Math.sin(t * Math.PI * 3)),
      );
    }
    await page.mouse.up();
    // The box on the page shows the drawn signature.
    await poll(() => page.locator('.sig-box img').count()).toBe(1);
    await expectNoSideScroll(page);
    await shoot(page, 'sign-draw-phone');
    await page.getByRole('button', { name: 'Sign document' }).click();
    const download = page.getByRole('link', { name: 'Download signed PDF' });
    await download.waitFor({ timeout: 30_000 });
    const [file] = await Promise.all([page.waitForEvent('download'), download.click()]);
    const signed = await readFile(await file.path());
    expect((await pdfSig(signed)).stdout).toContain('Signature Validation: Signature is Valid.');
    const rendered = await renderPage(signed, 0);
    // The box is 40% wide and a third as high (in page units: the 4:3 photo makes it ~18% high).
    expect(inkAt(rendered, { x: 52, y: 57, width: 36, height: 14 })).toBeGreaterThan(0.01);
    expect(inkAt(rendered, { x: 5, y: 60, width: 40, height: 35 })).toBe(0);
    const auditId = (await page.locator('.message.success code').textContent()) ?? '';
    const record = (await (
      await fetch(`${baseUrl}/api/documents/${auditId}`, { headers: { Cookie: user.cookie } })
    ).json()) as { auditLog: { event: string; details: Record<string, unknown> }[] };
    expect(record.auditLog.find((e) => e.event === 'signature.applied')?.details).toMatchObject({
      mode: 'draw',
    });
    expect(record.auditLog.find((e) => e.event === 'document.uploaded')?.details).toMatchObject({
      kind: 'jpeg',
    });
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lists documents with search, date range, sort and paging, shows one with its audit log, and downloads it', async () => {
    const user = await signUpAndIn();
    await setPlan(user.email, 'business');
    const names = ['alpha-nda.pdf', 'bravo-lease.pdf', 'charlie-nda.pdf', 'delta-lease.pdf', 'echo-nda.pdf'];
    for (const name of names) {
      const res = await dashboardSign(user, name);
      expect(res.status).toBe(201);
      await res.json();
    }
    const { page, context, problems } = await openSignedIn(user);
    await page.goto(`${baseUrl}/dashboard#/documents?limit=2`);
    const rows = page.locator('table.documents tbody tr');
    const files = () => page.locator('td[data-label="File"]').allTextContents();
    await poll(files).toEqual(['echo-nda.pdf', 'delta-lease.pdf']);
    expect(await page.locator('.pager-summary').textContent()).toBe('Page 1 of 3 · 5 documents');
    await page.getByRole('link', { name: 'Next' }).click();
    await poll(files).toEqual(['charlie-nda.pdf', 'bravo-lease.pdf']);
    await page.getByRole('link', { name: 'Next' }).click();
    await poll(files).toEqual(['alpha-nda.pdf']);
    expect(await page.getByRole('link', { name: 'Next' }).count()).toBe(0);
    await page.getByRole('link', { name: 'Previous' }).click();
    await poll(files).toEqual(['charlie-nda.pdf', 'bravo-lease.pdf']);

    // Search and sort (the filters go back to page 1).
    await page.getByLabel('Search file names').fill('lease');
    await page.getByLabel('Sort').selectOption({ label: 'File name A–Z' });
    await page.getByRole('button', { name: 'Apply' }).click();
    await poll(files).toEqual(['bravo-lease.pdf', 'delta-lease.pdf']);
    expect(await page.evaluate<string>('location.hash')).toBe(
      '#/documents?search=lease&sort=name-asc&limit=2',
    );
    // A date range: today holds them all, tomorrow none.
    const today = new Date().toISOString().slice(0, 10);
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('Search file names').fill('');
    await page.getByLabel('Signed from').fill(today);
    await page.getByLabel('Signed to').fill(today);
    await page.getByLabel('Per page').selectOption('10');
    await page.getByRole('button', { name: 'Apply' }).click();
    await poll(() => rows.count()).toBe(5);
    await page.getByLabel('Signed from').fill(tomorrow);
    await page.getByLabel('Signed to').fill(tomorrow);
    await page.getByRole('button', { name: 'Apply' }).click();
    await poll(() => page.locator('.empty').textContent()).toBe('No document matches these filters.');
    await page.getByRole('link', { name: 'Clear' }).click();
    await poll(() => rows.count()).toBe(5);
    await shoot(page, 'documents-desktop');
    await page.setViewportSize(PHONE);
    await expectNoSideScroll(page);
    await shoot(page, 'documents-phone');
    await page.setViewportSize(DESKTOP);

    // A document's detail with its audit log, and its download.
    await page.getByRole('link', { name: 'charlie-nda.pdf', exact: true }).click();
    await poll(() => heading(page).textContent()).toBe('charlie-nda.pdf');
    const events = await page.locator('.audit-log li strong').allTextContents();
    expect(events).toEqual([
      'document.uploaded',
      'signature.applied',
      'document.sealed',
      'document.recorded',
    ]);
    await shoot(page, 'document-desktop');
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download signed PDF' }).click(),
    ]);
    expect(file.suggestedFilename()).toBe('charlie-nda-signed.pdf');
    const bytes = await readFile(await file.path());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
    const hash = await page.locator('dd code.hash').first().textContent();
    expect(sha256(bytes)).toBe(hash);
    await page.setViewportSize(PHONE);
    await expectNoSideScroll(page);
    await shoot(page, 'document-phone');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows the requests sent for signing with their status: waiting, signed, declined (with the reason), canceled', async () => {
    const user = await signUpAndIn();
    await setPlan(user.email, 'business');
    const created = await fetch(`${baseUrl}/api/keys`, {
      method: 'POST',
      headers: { ...dashboardHeaders(user), 'Content-Type': 'application/json' },
      body: '{}',
    });
    const { key } = (await created.json()) as { key: string };
    const recipients = [newRecipient(), newRecipient(), newRecipient(), newRecipient()];
    const sent: SendResult[] = [];
    for (const [i, recipient] of recipients.entries()) {
      const res = await sendForSigning(key, {
        pdf,
        fileName: `request-${i + 1}.pdf`,
        recipientEmail: recipient,
        recipientName: `Recipient ${i + 1}`,
        fields: { positions: [{ x: 10, y: 70, page: 0, width: 30 }] },
      });
      expect(res.status).toBe(201);
      sent.push((await res.json()) as SendResult);
    }
    const [, toSign, toDecline, toCancel] = sent;
    if (!toSign || !toDecline || !toCancel) throw new Error('not sent');
    // Signed and declined through their links (as the signing page does), canceled by the sender.
    const signLink = linkIn((await waitForMail(toSign.recipientEmail))[0]);
    const signed = await pageCall('/signing/api/sign', signLink.token, {
      signerName: 'Recipient 2',
      signature: { mode: 'type', typedName: 'R. Two', color: '#1e3a8a' },
    });
    expect(signed.status).toBe(200);
    await signed.arrayBuffer();
    const declineLink = linkIn((await waitForMail(toDecline.recipientEmail))[0]);
    const declined = await pageCall('/signing/api/decline', declineLink.token, { reason: 'Wrong amount' });
    expect(declined.status).toBe(200);
    await declined.arrayBuffer();
    const canceled = await fetch(`${baseUrl}/api/v1/send/${toCancel.sendId}/cancel`, {
      method: 'POST',
      headers: auth(key),
    });
    expect(canceled.status).toBe(200);
    await canceled.arrayBuffer();

    const { page, context, problems } = await openSignedIn(user);
    await page.goto(`${baseUrl}/dashboard#/sent`);
    await poll(() => heading(page).textContent()).toBe('Sent for signing');
    const cell = (sendId: string, label: string) =>
      page.locator(`tr[data-send-id="${sendId}"] td[data-label="${label}"]`).textContent();
    await poll(() => page.locator('table.sent tbody tr').count()).toBe(4);
    // Newest first.
    expect(await page.locator('td[data-label="Document"]').first().textContent()).toContain('request-4.pdf');
    const [pending] = sent;
    if (!pending) throw new Error('not sent');
    expect(await cell(pending.sendId, 'Status')).toBe('Waiting for signature');
    expect(await cell(pending.sendId, 'Progress')).toMatch(/^Not opened yet · expires \d{4}-\d{2}-\d{2}/);
    expect(await cell(toSign.sendId, 'Status')).toBe('Signed');
    expect(await cell(toDecline.sendId, 'Status')).toBe('Declined');
    expect(await cell(toDecline.sendId, 'Progress')).toContain('“Wrong amount”');
    expect(await cell(toCancel.sendId, 'Status')).toBe('Canceled');
    expect(await cell(toCancel.sendId, 'Recipient')).toBe(`Recipient 4 <${toCancel.recipientEmail}>`);
    expect(await page.locator('.pager-summary').textContent()).toBe('Page 1 of 1 · 4 requests');
    await shoot(page, 'sent-desktop');
    // The signed one links to its document.
    await page.getByRole('link', { name: 'request-2.pdf' }).click();
    await poll(() => heading(page).textContent()).toBe('request-2.pdf');
    expect(await page.locator('dd code').first().textContent()).toBe(toSign.auditId);
    await page.goBack();
    await poll(() => heading(page).textContent()).toBe('Sent for signing');
    await page.setViewportSize(PHONE);
    await expectNoSideScroll(page);
    await shoot(page, 'sent-phone');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('is usable with the keyboard alone: sign in, reach API keys, create a key and copy it', async () => {
    const user = await signUpAndIn();
    const { page, context, problems } = await openPage(DESKTOP, [401]);
    await page.goto(`${baseUrl}/dashboard#/sign-in`);
    await poll(() => heading(page).textContent()).toBe('Sign in');
    await tabTo(page, page.getByLabel('Email'));
    await page.keyboard.type(user.email);
    await page.keyboard.press('Tab');
    await page.keyboard.type(user.password);
    await page.keyboard.press('Enter');
    await poll(() => heading(page).textContent()).toBe('Documents');
    // Focus went to the new view's heading; the navigation is reached from the top of the page.
    await poll(() => page.locator('main h1:focus').count()).toBe(1);
    await page.keyboard.press('Shift+Tab');
    await tabTo(page, page.getByRole('link', { name: 'API keys' }));
    // The focused link is visibly marked.
    const outline = await page.evaluate<string>('getComputedStyle(document.activeElement).outlineStyle');
    expect(outline).not.toBe('none');
    await page.keyboard.press('Enter');
    await poll(() => heading(page).textContent()).toBe('API keys');
    await tabTo(page, page.getByLabel('Name'));
    await page.keyboard.type('keyboard key');
    await page.keyboard.press('Enter');
    await page.getByLabel('Your API key').waitFor();
    // Focus is on the new key; the next stop is its Copy button.
    expect(await focused(page).inputValue()).toMatch(/^svc_live_/);
    await page.keyboard.press('Tab');
    expect(await focused(page).textContent()).toBe('Copy key');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('.copy-status').textContent()).toBe('Copied to the clipboard.');
    // Revoke with the keyboard: the dialog opens on Cancel, Tab reaches Revoke key.
    await tabTo(page, page.getByRole('button', { name: 'Revoke keyboard key' }));
    await page.keyboard.press('Enter');
    await page.getByRole('dialog').waitFor();
    expect(await focused(page).textContent()).toBe('Cancel');
    await page.keyboard.press('Tab');
    expect(await focused(page).textContent()).toBe('Revoke key');
    await page.keyboard.press('Enter');
    await poll(() => page.locator('td[data-label="Status"]').textContent()).toMatch(/^Revoked/);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('signs in with an emailed one-time link: the same answer for an unknown address, the link works once, its token is in no log', async () => {
    const user = await signUpAndIn();
    const { page, context, problems } = await openPage(PHONE, [401]);
    await page.goto(`${baseUrl}/dashboard#/sign-in`);
    await page.getByRole('link', { name: 'Email me a sign-in link instead' }).click();
    await poll(() => heading(page).textContent()).toBe('Sign in with an email link');
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Email me a link' }).click();
    await poll(() => page.getByRole('status').textContent()).toContain('If this address has an account');
    const shown = (await page.getByRole('status').textContent()) ?? '';
    await expectNoSideScroll(page);
    await shoot(page, 'sign-in-link-phone');
    // An address without an account gets the same answer, and no email.
    const nobody = `nobody${Date.now()}@example.com`;
    const unknown = await fetch(`${baseUrl}/api/auth/sign-in-link`, jsonInit('POST', { email: nobody }));
    expect(unknown.status).toBe(202);
    expect(((await unknown.json()) as { message: string }).message).toBe(shown);

    const [mail] = await waitForMail(user.email, /sign-in link/);
    const match = /(http:\/\/\S+\/dashboard#\/link\/([A-Za-z0-9_-]{43,128}))/.exec(mail?.text ?? '');
    const [, link, token] = match ?? [];
    if (!link || !token) throw new Error(`no sign-in link in: ${mail?.text}`);
    // Opening the link signs nobody in (a mail scanner may open it); the button does.
    await page.goto(link);
    await poll(() => heading(page).textContent()).toBe('Finish signing in');
    expect(await page.evaluate<string>('location.hash')).toBe('#/link');
    expect(await context.cookies()).toEqual([]);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await poll(() => heading(page).textContent()).toBe('Documents');
    expect(await page.locator('#account-email').textContent()).toBe(user.email);

    // Once only: the same link in another browser is refused.
    const other = await openPage(DESKTOP, [401]);
    await other.page.goto(link);
    await poll(() => heading(other.page).textContent()).toBe('Finish signing in');
    await other.page.getByRole('button', { name: 'Sign in' }).click();
    await poll(() => other.page.getByRole('alert').textContent()).toBe(
      'This sign-in link has expired or was already used: ask for a new one',
    );
    await other.context.close();
    // Another site cannot post a token (login CSRF).
    const foreign = await fetch(
      `${baseUrl}/api/auth/sign-in-link/redeem`,
      jsonInit('POST', { token }, { Origin: 'https://evil.example' }),
    );
    expect(foreign.status).toBe(403);

    // The mailer sent nothing to the unknown address, and the token is in no service's log.
    await poll(() => stackLog()).toContain('no account for this address');
    expect(await mailTo(nobody)).toEqual([]);
    expect(await stackLog()).not.toContain(token);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('goes back to sign-in, saying why, when the session ends elsewhere', async () => {
    const user = await signUpAndIn();
    const { page, context, problems } = await openSignedIn(user, DESKTOP, [401]);
    await page.goto(`${baseUrl}/dashboard#/documents`);
    await poll(() => heading(page).textContent()).toBe('Documents');
    const out = await fetch(`${baseUrl}/api/auth/sign-out`, {
      method: 'POST',
      headers: dashboardHeaders(user),
    });
    expect(out.status).toBe(204);
    await page.getByRole('link', { name: 'API keys' }).click();
    await poll(() => heading(page).textContent()).toBe('Sign in');
    expect(await page.getByRole('status').textContent()).toBe('Your session ended. Please sign in again.');
    expect(await page.locator('#nav').isHidden()).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('refuses CSRF on its endpoints, a stolen cookie on /api/v1, and an API key on its endpoints', async () => {
    const user = await signUpAndIn();
    await setPlan(user.email, 'business');
    const body = () => signForm({ file: { bytes: pdf, name: 'csrf.pdf' }, fields: typedSignature });
    const noToken = await fetch(`${baseUrl}/api/sign`, {
      method: 'POST',
      headers: { Cookie: user.cookie, Origin: baseUrl },
      body: body(),
    });
    expect(noToken.status).toBe(403);
    expect(await errorOf(noToken)).toContain('X-CSRF-Token');
    const wrongToken = await fetch(`${baseUrl}/api/sign`, {
      method: 'POST',
      headers: { ...dashboardHeaders(user), 'X-CSRF-Token': 'x'.repeat(43) },
      body: body(),
    });
    expect(wrongToken.status).toBe(403);
    const foreign = await fetch(`${baseUrl}/api/sign`, {
      method: 'POST',
      headers: { ...dashboardHeaders(user), Origin: 'https://evil.example' },
      body: body(),
    });
    expect(foreign.status).toBe(403);
    expect(await errorOf(foreign)).toContain('Origin');
    // A page of another site that posts a form to /api/keys in a browser holding the session cookie
    // (the classic CSRF; the page is served by Playwright, nothing leaves the machine): refused.
    const { page, context } = await openPage(DESKTOP, [401, 403]);
    await context.addCookies([
      { name: SESSION_COOKIE, value: user.cookie.slice(SESSION_COOKIE.length + 1), url: baseUrl },
    ]);
    await page.route('https://evil.example/**', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<form method="post" action="${baseUrl}/api/keys" enctype="text/plain"><input name='{"name":"evil","x":"' value='"}'></form><script>document.forms[0].submit()</script>`,
      }),
    );
    const [posted] = await Promise.all([
      page.waitForResponse((res) => res.url() === `${baseUrl}/api/keys`),
      page.goto('https://evil.example/'),
    ]);
    expect([401, 403]).toContain(posted.status());
    await context.close();
    // None of them signed or created anything.
    const docs = (await (
      await fetch(`${baseUrl}/api/documents`, { headers: { Cookie: user.cookie } })
    ).json()) as { total: number };
    expect(docs.total).toBe(0);
    const keys = (await (
      await fetch(`${baseUrl}/api/keys`, { headers: { Cookie: user.cookie } })
    ).json()) as {
      keys: unknown[];
    };
    expect(keys.keys).toEqual([]);

    // A stolen session cookie does nothing on /api/v1, with or without the CSRF token.
    const stolenSign = await fetch(`${baseUrl}/api/v1/sign`, {
      method: 'POST',
      headers: dashboardHeaders(user),
      body: body(),
    });
    expect(stolenSign.status).toBe(401);
    expect(await errorOf(stolenSign)).toContain('API key');
    const stolenList = await fetch(`${baseUrl}/api/v1/documents`, { headers: { Cookie: user.cookie } });
    expect(stolenList.status).toBe(401);
    await stolenList.arrayBuffer();

    // An API key does nothing on the dashboard's endpoints.
    const business = await createAccount('business');
    const signedWithKey = await sign(business.apiKey, {
      file: { bytes: pdf, name: 'k.pdf' },
      fields: typedSignature,
    });
    const auditId = signedWithKey.headers.get('x-audit-id') ?? '';
    await signedWithKey.arrayBuffer();
    for (const path of ['/api/documents', `/api/documents/${auditId}`, `/api/documents/${auditId}/pdf`]) {
      const res = await fetch(`${baseUrl}${path}`, { headers: auth(business.apiKey) });
      expect(res.status, path).toBe(401);
      expect(await errorOf(res)).toMatch(/sign in/i);
    }
    const keyOnSign = await fetch(`${baseUrl}/api/sign`, {
      method: 'POST',
      headers: { ...auth(business.apiKey), Origin: baseUrl },
      body: body(),
    });
    expect(keyOnSign.status).toBe(401);
    // Another account's document: 404, as an unknown one.
    const foreignDoc = await fetch(`${baseUrl}/api/documents/${auditId}/pdf`, {
      headers: { Cookie: user.cookie },
    });
    expect(foreignDoc.status).toBe(404);
    await foreignDoc.arrayBuffer();
  });

  it("takes files up to the session plan's size: a Free account's 10 MB (413 while it streams)", async () => {
    const user = await signUpAndIn();
    const big = Buffer.concat([pdf, Buffer.alloc(10 * 1024 * 1024 + 1024, 0x20)]);
    const form = new Response(signForm({ file: { bytes: big, name: 'big.pdf' }, fields: typedSignature }));
    const body = Buffer.from(await form.arrayBuffer());
    const url = new URL(`${baseUrl}/api/sign`);
    // node:http, not fetch: the gateway answers 413 before the body is through and closes, which
    // fetch reports as a failed write rather than the answer.
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      let responded = false;
      const req = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: {
            ...dashboardHeaders(user),
            'Content-Type': form.headers.get('content-type') ?? '',
            'Content-Length': String(body.length),
          },
        },
        (res) => {
          responded = true;
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d: string) => (text += d));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', (err) => {
        if (!responded) reject(err);
      });
      req.end(body);
    });
    expect(answer.status).toBe(413);
    expect((JSON.parse(answer.body) as { error: string }).error).toBe('file exceeds the 10 MB limit');
    // The same file on Business (25 MB) is taken.
    await setPlan(user.email, 'business');
    const taken = await fetch(`${baseUrl}/api/sign`, {
      method: 'POST',
      headers: dashboardHeaders(user),
      body: signForm({ file: { bytes: big, name: 'big.pdf' }, fields: typedSignature }),
    });
    expect(taken.status).toBe(201);
    await taken.json();
  });
});
