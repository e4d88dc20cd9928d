import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccountPlanSet } from '@esign/contracts';
import { makePdf } from '@esign/testing';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auth,
  baseUrl,
  dashboardHeaders,
  operatorBus,
  SESSION_COOKIE,
  signUpAndIn,
  type SignedInUser,
} from './harness';
import { mailTo, newRecipient, pageCall, send, waitForMail, type SendResult } from './send-harness';

// The dashboard's envelope views (/dashboard#/envelopes, #/new-envelope, #/envelope/<id>) and its
// embed origins (#/embedding) in Debian's Chromium through the whole e2e stack: the fields are placed
// by dragging and by the keyboard, and the API shows them where they were dropped; a recipient's email
// is sent again and a recipient replaced from the envelope's page, checked on the emails the stack's
// SMTP server received and on the links' answers; origins are added and removed as the API shows.

const SHOTS = process.env.DASHBOARD_SCREENSHOTS ?? join(tmpdir(), 'esign-dashboard-screenshots');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 375, height: 812 };

interface Field {
  type: string;
  page: number;
  x: number;
  y: number;
  width: number;
  height?: number;
  required: boolean;
}
interface Envelope {
  envelopeId: string;
  status: string;
  subject: string;
  message: string | null;
  currentOrder: number | null;
  recipients: {
    recipientId: string;
    name: string;
    email: string;
    role: string;
    order: number;
    status: string;
    requireEmailCode: boolean;
    fields: Field[];
    replaces?: { name: string; email: string; replacedAt: string }[];
  }[];
}
/** A box in percent of its page (the API's convention: top-left origin). */
interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

let browser: Browser;
let pdf: Buffer;
let user: SignedInUser;
let apiKey: string;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  pdf = await makePdf({ pages: 2, text: 'Envelope dashboard test' });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  user = await signUpAndIn();
  await (await operatorBus()).request(AccountPlanSet, { email: user.email, plan: 'business' });
  const created = await fetch(`${baseUrl}/api/keys`, {
    method: 'POST',
    headers: { ...dashboardHeaders(user), 'Content-Type': 'application/json' },
    body: '{}',
  });
  expect(created.status).toBe(201);
  apiKey = ((await created.json()) as { key: string }).key;
});
afterAll(async () => {
  await browser?.close();
});

const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 20_000 });
const heading = (page: Page) => page.locator('main h1');
const focused = (page: Page): Locator => page.locator(':focus');
const tabTo = async (page: Page, target: Locator, max = 60): Promise<void> => {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if ((await target.and(focused(page)).count()) > 0) return;
  }
  throw new Error(`Tab never reached ${target.toString()}`);
};
const shoot = async (page: Page, name: string): Promise<void> => {
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
};
const expectNoSideScroll = async (page: Page): Promise<void> => {
  const { scroll, width, wide } = await page.evaluate<{ scroll: number; width: number; wide: string[] }>(
    `({
      scroll: document.documentElement.scrollWidth,
      width: window.innerWidth,
      wide: [...document.querySelectorAll('body *')]
        .filter((el) => el.getBoundingClientRect().right + window.scrollX > window.innerWidth + 0.5)
        .slice(-5)
        .map((el) => el.tagName + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right + window.scrollX)),
    })`,
  );
  expect(scroll, `page width (wider: ${wide.join(', ')})`).toBeLessThanOrEqual(width);
};

const openSignedIn = async (viewport = DESKTOP, expectedStatuses: number[] = []) => {
  const context = await browser.newContext({ viewport, acceptDownloads: true });
  await context.addCookies([
    { name: SESSION_COOKIE, value: user.cookie.slice(SESSION_COOKIE.length + 1), url: baseUrl },
  ]);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
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

const boxOf = async (locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> => {
  const box = await locator.boundingBox();
  if (!box) throw new Error(`${locator.toString()} is not shown`);
  return box;
};

/** Where a field's box is shown, in percent of its page's layer. */
const shownBox = async (page: Page, field: Locator, pageIndex = 0): Promise<Box> => {
  const layer = await boxOf(page.locator(`figure.pdf-page[data-page="${pageIndex}"] .pdf-layer`));
  const box = await boxOf(field);
  return {
    x: ((box.x - layer.x) / layer.width) * 100,
    y: ((box.y - layer.y) / layer.height) * 100,
    width: (box.width / layer.width) * 100,
    height: (box.height / layer.height) * 100,
  };
};

/** Drags a palette item with the mouse and drops it at (fx, fy), fractions of page 1. */
const dragOnto = async (
  page: Page,
  item: Locator,
  fx: number,
  fy: number,
): Promise<{ cx: number; cy: number }> => {
  const pageLayer = page.locator('figure.pdf-page[data-page="0"] .pdf-layer');
  // Scrolled so that the drop point is low on the screen (the palette stays at the top: sticky).
  const before = await boxOf(pageLayer);
  await page.evaluate(
    `window.scrollBy(0, ${Math.round(before.y + before.height * fy - DESKTOP.height * 0.7)})`,
  );
  const layer = await boxOf(pageLayer);
  const from = await boxOf(item);
  const to = { x: layer.x + layer.width * fx, y: layer.y + layer.height * fy };
  expect(to.y, 'the drop point is on screen').toBeLessThan(DESKTOP.height);
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(to.x, to.y, { steps: 12 });
  await page.mouse.up();
  return { cx: fx * 100, cy: fy * 100 };
};

const expectNear = (actual: number, expected: number, tolerance: number, what: string) => {
  expect(Math.abs(actual - expected), `${what}: ${actual} vs ${expected}`).toBeLessThanOrEqual(tolerance);
};

const ENVELOPE_LINK = /https?:\/\/[^\s"<>]+\/e\/([A-Za-z0-9_-]{43})/;

/** Waits for `count` emails to `address` and answers the envelope link in each. */
const tokensTo = async (address: string, count: number): Promise<string[]> =>
  (await waitForMail(address, undefined, count, 30_000)).flatMap((mail) => {
    const token = ENVELOPE_LINK.exec(mail.text)?.[1];
    return token ? [token] : [];
  });

describe('envelopes in the dashboard', () => {
  it('are account operations: the session at /api/envelopes (CSRF on changes), the key at /api/v1/envelopes', async () => {
    const list = await fetch(`${baseUrl}/api/envelopes`, { headers: { Cookie: user.cookie } });
    expect(list.status).toBe(200);
    expect(list.headers.get('cache-control')).toBe('no-store');
    expect(await list.json()).toEqual({ envelopes: [], nextCursor: null });
    // Neither credential works on the other's path.
    expect((await fetch(`${baseUrl}/api/envelopes`, { headers: auth(apiKey) })).status).toBe(401);
    expect((await fetch(`${baseUrl}/api/v1/envelopes`, { headers: { Cookie: user.cookie } })).status).toBe(
      401,
    );
    expect((await fetch(`${baseUrl}/api/v1/envelopes`, { headers: auth(apiKey) })).status).toBe(200);
    // A change with the cookie but without the CSRF token is refused before anything is read.
    const noToken = await fetch(`${baseUrl}/api/envelopes`, {
      method: 'POST',
      headers: { Cookie: user.cookie, Origin: baseUrl },
      body: new FormData(),
    });
    expect(noToken.status).toBe(403);
  });

  it('creates one (two signers in groups 1 and 2, fields dragged and placed by keyboard), lists it with its progress, and cancels it', async () => {
    const { page, context, problems } = await openSignedIn(DESKTOP, [400]);
    await page.goto(`${baseUrl}/dashboard#/envelopes`);
    await poll(() => heading(page).textContent()).toBe('Envelopes');
    await page.getByText('No envelopes yet.').waitFor();
    await page.getByRole('link', { name: 'New envelope' }).click();
    await poll(() => heading(page).textContent()).toBe('New envelope');

    await page.getByLabel('PDF', { exact: true }).setInputFiles({
      name: 'agreement.pdf',
      mimeType: 'application/pdf',
      buffer: pdf,
    });
    await page.locator('figure.pdf-page[data-page="1"]').waitFor({ timeout: 20_000 });
    await page.getByLabel('Subject (optional)').fill('Please sign the agreement');
    await page.getByLabel('Message to the recipients (optional)').fill('Hello,\nplease sign.');

    const rows = page.locator('.recipient-rows > li');
    await rows.nth(0).getByLabel('Name', { exact: true }).fill('Ada Signer');
    await rows.nth(0).getByLabel('Email', { exact: true }).fill('ada.envelope@example.com');
    expect(await rows.nth(0).getByLabel('Group').inputValue()).toBe('1');
    await page.getByRole('button', { name: 'Add recipient' }).click();
    await rows.nth(1).getByLabel('Name', { exact: true }).fill('Bob Second');
    await rows.nth(1).getByLabel('Email', { exact: true }).fill('bob.envelope@example.com');
    await rows.nth(1).getByLabel('Group').fill('2');
    await rows.nth(1).getByLabel('Ask for a one-time code').check();

    // Sent without fields: the server's 400 is shown as it names the recipient.
    await page.getByRole('button', { name: 'Send envelope' }).click();
    const alert = page.locator('.form-status [role="alert"]');
    await poll(() => alert.textContent()).toContain(
      'recipients[0].fields: a signer needs at least one signature field',
    );

    // Ada's signature, dragged from the palette onto page 1.
    const signatureItem = page.getByRole('button', { name: 'Add a signature field' });
    await page
      .locator('figure.pdf-page[data-page="0"]')
      .evaluate('(el) => el.scrollIntoView({ block: "center" })');
    const fieldsFor = page.getByLabel('Fields for');
    expect(await fieldsFor.locator('option:checked').textContent()).toBe('Ada Signer');
    const adaDrop = await dragOnto(page, signatureItem, 0.3, 0.5);
    const fields = page.locator('figure.pdf-page[data-page="0"] .env-field');
    await poll(() => fields.count()).toBe(1);
    const adaShown = await shownBox(page, fields.nth(0));
    expectNear(adaShown.x + adaShown.width / 2, adaDrop.cx, 1, "Ada's signature centre x");
    expectNear(adaShown.y + adaShown.height / 2, adaDrop.cy, 1, "Ada's signature centre y");

    // Bob's, dragged too.
    await fieldsFor.selectOption({ label: 'Bob Second' });
    const bobDrop = await dragOnto(page, signatureItem, 0.65, 0.7);
    await poll(() => fields.count()).toBe(2);
    const bobShown = await shownBox(page, fields.nth(1));
    expectNear(bobShown.x + bobShown.width / 2, bobDrop.cx, 1, "Bob's signature centre x");
    expectNear(bobShown.y + bobShown.height / 2, bobDrop.cy, 1, "Bob's signature centre y");
    // Dragging an existing box moves it, by the distance the pointer moved.
    const bobBox = await boxOf(fields.nth(1));
    const layer = await boxOf(page.locator('figure.pdf-page[data-page="0"] .pdf-layer'));
    await page.mouse.move(bobBox.x + 10, bobBox.y + 10);
    await page.mouse.down();
    await page.mouse.move(bobBox.x + 10 - layer.width * 0.05, bobBox.y + 10, { steps: 6 });
    await page.mouse.up();
    const bobMoved = await shownBox(page, fields.nth(1));
    expectNear(bobMoved.x, bobShown.x - 5, 0.5, "Bob's signature moved left");
    expectNear(bobMoved.y, bobShown.y, 0.5, "Bob's signature kept its height");

    // Bob's date, with the keyboard only: Tab to the palette, Enter, arrows move, Shift+arrows resize.
    const dateItem = page.getByRole('button', { name: 'Add a date field' });
    await page.getByLabel('Subject (optional)').focus();
    await tabTo(page, dateItem);
    await page.keyboard.press('Enter');
    await poll(() => fields.count()).toBe(3);
    const dateField = page.locator('.env-field[data-field-type="date"]');
    await poll(() => dateField.and(focused(page)).count()).toBe(1);
    const dateStart = await shownBox(page, dateField);
    for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowDown');
    for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+ArrowRight');
    await page.keyboard.press('Shift+ArrowDown');
    const dateShown = await shownBox(page, dateField);
    expectNear(dateShown.x, dateStart.x + 5, 0.3, 'date x after 5 × →');
    expectNear(dateShown.y, dateStart.y + 10, 0.3, 'date y after 10 × ↓');
    expectNear(dateShown.width, dateStart.width + 4, 0.3, 'date width after 4 × Shift+→');
    expectNear(dateShown.height, dateStart.height + 1, 0.3, 'date height after Shift+↓');
    expect(await dateField.getAttribute('aria-label')).toMatch(/^Date field of Bob Second, page 1, /);
    // Options of the selected field: optional, with a label.
    await page.getByLabel('Required').uncheck();
    await page.getByLabel('Label (shown to the signer)').fill('Date of signing');

    // A checkbox added and removed with the keyboard (Delete), focus back on the palette.
    await page.getByRole('button', { name: 'Add a checkbox field' }).focus();
    await page.keyboard.press('Enter');
    await poll(() => fields.count()).toBe(4);
    await page.keyboard.press('Delete');
    await poll(() => fields.count()).toBe(3);
    expect(await focused(page).getAttribute('data-field-type')).toBe('signature');
    // The palette button the signatures were dragged from still adds one with Enter (then Delete).
    await page.keyboard.press('Enter');
    await poll(() => fields.count()).toBe(4);
    expect(await focused(page).getAttribute('class')).toContain('env-field');
    await page.keyboard.press('Delete');
    await poll(() => fields.count()).toBe(3);
    await shoot(page, 'envelope-new-desktop');

    // Send: the envelope's page, then the list with it pending and each recipient's progress.
    await page.getByRole('button', { name: 'Send envelope' }).click();
    await poll(() => heading(page).textContent()).toBe('agreement.pdf');
    const envelopeId = decodeURIComponent(new URL(page.url()).hash.replace('#/envelope/', ''));
    expect(envelopeId).toMatch(/^env_/);
    await page.getByRole('link', { name: 'Envelopes', exact: true }).click();
    await poll(() => heading(page).textContent()).toBe('Envelopes');
    const row = page.locator(`tr[data-envelope-id="${envelopeId}"]`);
    await row.waitFor();
    expect(await row.locator('.badge.pending').textContent()).toBe('Pending');
    expect(await row.getByLabel('Group 1: 0 of 1 done, acting now').count()).toBe(1);
    expect(await row.getByLabel('Group 2: 0 of 1 done, waiting').count()).toBe(1);
    const lines = row.locator('.recipient-lines li');
    expect(await lines.nth(0).textContent()).toMatch(
      /^Ada Signer · Signer · group 1 · Notified \d{4}-\d\d-\d\d \d\d:\d\d UTC$/,
    );
    expect(await lines.nth(1).textContent()).toBe(
      'Bob Second · Signer · group 2 · Waiting their turn has not come',
    );
    // The status filter: only pending ones, then none canceled.
    await page.getByLabel('Status').selectOption('canceled');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No canceled envelopes.').waitFor();
    await page.getByLabel('Status').selectOption('pending');
    await page.getByRole('button', { name: 'Apply' }).click();
    await row.waitFor();
    await shoot(page, 'envelopes-desktop');

    // The API (an API key of the same account) has the fields where they were dropped.
    const res = await fetch(`${baseUrl}/api/v1/envelopes/${envelopeId}`, { headers: auth(apiKey) });
    expect(res.status).toBe(200);
    const envelope = (await res.json()) as Envelope;
    expect(envelope).toMatchObject({
      status: 'pending',
      currentOrder: 1,
      subject: 'Please sign the agreement',
    });
    // A textarea's line breaks: multipart/form-data sends them as CRLF (the HTML standard's encoding).
    expect(envelope.message).toMatch(/^Hello,\r?\nplease sign\.$/);
    const [ada, bob] = envelope.recipients;
    expect(ada).toMatchObject({
      name: 'Ada Signer',
      order: 1,
      role: 'signer',
      status: 'notified',
      requireEmailCode: false,
    });
    expect(bob).toMatchObject({
      name: 'Bob Second',
      order: 2,
      role: 'signer',
      status: 'waiting',
      requireEmailCode: true,
    });
    expect(ada?.fields).toHaveLength(1);
    expect(bob?.fields.map((f) => f.type)).toEqual(['signature', 'date']);
    const expectAt = (field: Field | undefined, shown: Box, what: string) => {
      expect(field?.page, what).toBe(0);
      expectNear(field?.x ?? -1, shown.x, 0.5, `${what} x`);
      expectNear(field?.y ?? -1, shown.y, 0.5, `${what} y`);
      expectNear(field?.width ?? -1, shown.width, 0.5, `${what} width`);
      expectNear(field?.height ?? -1, shown.height, 0.5, `${what} height`);
    };
    expectAt(ada?.fields[0], adaShown, "Ada's signature");
    expectNear((ada?.fields[0]?.x ?? 0) + (ada?.fields[0]?.width ?? 0) / 2, adaDrop.cx, 1, 'dropped x');
    expectNear((ada?.fields[0]?.y ?? 0) + (ada?.fields[0]?.height ?? 0) / 2, adaDrop.cy, 1, 'dropped y');
    expectAt(bob?.fields[0], bobMoved, "Bob's signature");
    expectAt(bob?.fields[1], dateShown, "Bob's date");
    expect(bob?.fields[1]).toMatchObject({ required: false, label: 'Date of signing' });

    // The detail: the marked copy downloads; then cancel.
    await row.getByRole('link', { name: 'agreement.pdf' }).click();
    await poll(() => heading(page).textContent()).toBe('agreement.pdf');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download copy (marked NOT COMPLETE)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('agreement-incomplete.pdf');
    const bytes = await readFile(await download.path());
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');

    await page.setViewportSize(PHONE);
    await expectNoSideScroll(page);
    await shoot(page, 'envelope-phone');
    await page.getByRole('button', { name: 'Cancel envelope' }).click();
    await page.locator('dialog').getByRole('button', { name: 'Cancel envelope' }).click();
    await poll(() => page.locator('main .badge.canceled').first().textContent()).toBe('Canceled');
    expect(await page.getByRole('button', { name: 'Cancel envelope' }).count()).toBe(0);
    const after = (await (
      await fetch(`${baseUrl}/api/v1/envelopes/${envelopeId}`, { headers: auth(apiKey) })
    ).json()) as Envelope;
    expect(after.status).toBe('canceled');

    // Paging by the cursor: another envelope (sent with the key), one per page.
    const form = new FormData();
    form.set(
      'recipients',
      JSON.stringify([
        {
          name: 'Cy Third',
          email: 'cy.envelope@example.com',
          role: 'signer',
          order: 1,
          fields: [{ type: 'signature', page: 1, x: 10, y: 10, width: 30 }],
        },
      ]),
    );
    form.set('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'second.pdf');
    const second = await fetch(`${baseUrl}/api/v1/envelopes`, {
      method: 'POST',
      headers: auth(apiKey),
      body: form,
    });
    expect(second.status).toBe(201);
    const secondId = ((await second.json()) as Envelope).envelopeId;
    await page.goto(`${baseUrl}/dashboard#/envelopes?limit=1`);
    const listed = page.locator('tr[data-envelope-id]');
    await poll(() => listed.getAttribute('data-envelope-id')).toBe(secondId);
    expect(await listed.count()).toBe(1);
    await page.getByRole('link', { name: 'Older' }).click();
    await poll(() => listed.getAttribute('data-envelope-id')).toBe(envelopeId);
    expect(new URL(page.url()).hash).toMatch(/^#\/envelopes\?limit=1&cursor=/);
    await page.getByRole('link', { name: 'Newest' }).click();
    await poll(() => listed.getAttribute('data-envelope-id')).toBe(secondId);

    // 375 px: the list and the form (with the document drawn) never scroll sideways.
    await page.goto(`${baseUrl}/dashboard#/envelopes`);
    await page.locator(`tr[data-envelope-id="${envelopeId}"] .badge.canceled`).waitFor();
    expect(
      await page.locator(`tr[data-envelope-id="${envelopeId}"] .recipient-lines li`).nth(1).textContent(),
    ).toBe('Bob Second · Signer · group 2 · Waiting never reached');
    await expectNoSideScroll(page);
    await shoot(page, 'envelopes-phone');
    await page.goto(`${baseUrl}/dashboard#/new-envelope`);
    await page.getByLabel('PDF', { exact: true }).setInputFiles({
      name: 'phone.pdf',
      mimeType: 'application/pdf',
      buffer: pdf,
    });
    await page.locator('figure.pdf-page[data-page="1"]').waitFor({ timeout: 20_000 });
    await page.getByRole('button', { name: 'Add a signature field' }).click();
    await poll(() => page.locator('.env-field').count()).toBe(1);
    await expectNoSideScroll(page);
    await shoot(page, 'envelope-new-phone');

    expect(problems).toEqual([]);
    await context.close();
  });
  it("corrects a pending envelope from its page: resends a recipient's email, replaces a recipient, then cancels", async () => {
    const [ada, eve, bob, cy, nina] = [
      newRecipient(),
      newRecipient(),
      newRecipient(),
      newRecipient(),
      newRecipient(),
    ];
    const signature = { type: 'signature', page: 0, x: 10, y: 70, width: 25 };
    const form = new FormData();
    form.set(
      'recipients',
      JSON.stringify([
        { name: 'Ada Signer', email: ada, role: 'signer', order: 1, fields: [signature] },
        { name: 'Eve Embedded', email: eve, role: 'signer', order: 1, embedded: true, fields: [signature] },
        { name: 'Bob Later', email: bob, role: 'approver', order: 2 },
        { name: 'Cy Copy', email: cy, role: 'cc', order: 2 },
      ]),
    );
    form.set('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'corrections.pdf');
    const created = await fetch(`${baseUrl}/api/v1/envelopes`, {
      method: 'POST',
      headers: auth(apiKey),
      body: form,
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const { envelopeId } = (await created.json()) as Envelope;
    const [firstLink] = await tokensTo(ada, 1);

    const { page, context, problems } = await openSignedIn(DESKTOP, [400]);
    await page.goto(`${baseUrl}/dashboard#/envelope/${envelopeId}`);
    await poll(() => heading(page).textContent()).toBe('corrections.pdf');
    // Resend only for those whose turn came and who are emailed; Replace for everyone who has not acted.
    const rowOf = (name: string) => page.locator('tr[data-recipient]', { hasText: name });
    const actionsOf = (name: string) => rowOf(name).locator('button').allTextContents();
    expect(await actionsOf('Ada Signer')).toEqual(['Resend', 'Replace']);
    expect(await actionsOf('Eve Embedded')).toEqual(['Replace']);
    expect(await actionsOf('Bob Later')).toEqual(['Replace']);
    expect(await actionsOf('Cy Copy')).toEqual(['Replace']);

    // Resend: a second email with a new link; the first link is dead.
    await page.getByRole('button', { name: 'Resend the email to Ada Signer' }).click();
    const note = page.locator('main .message.success');
    await poll(() => note.textContent()).toContain(`A new email is on its way to Ada Signer <${ada}>`);
    expect(await note.and(focused(page)).count()).toBe(1);
    const adaLinks = await tokensTo(ada, 2);
    const resentLink = adaLinks.find((token) => token !== firstLink) ?? '';
    expect(resentLink).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await pageCall('/envelope/api/recipient', firstLink ?? '')).status).toBe(404);
    expect((await pageCall('/envelope/api/recipient', resentLink)).status).toBe(200);

    // Replace, with the keyboard only: Ada's place to Nina. First an address the group already has:
    // the server's 400 is shown as it wrote it, focus on the email.
    await page.getByRole('button', { name: 'Replace Ada Signer' }).focus();
    await page.keyboard.press('Enter');
    const replaceForm = page.getByRole('form', { name: 'Replace Ada Signer' });
    await replaceForm.waitFor();
    expect(await replaceForm.getByLabel('Name').and(focused(page)).count()).toBe(1);
    await page.keyboard.type('Nina Newcomer');
    await page.keyboard.press('Tab');
    await page.keyboard.type(eve);
    await page.keyboard.press('Enter');
    const refused = replaceForm.locator('[role="alert"]');
    await poll(() => refused.textContent()).toMatch(/^Not replaced: email: .*group 1/);
    expect(await replaceForm.getByLabel('Email').and(focused(page)).count()).toBe(1);
    await page.setViewportSize(PHONE);
    await expectNoSideScroll(page);
    await shoot(page, 'envelope-replace-phone');
    await page.setViewportSize(DESKTOP);
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type(nina);
    await page.keyboard.press('Enter');
    await poll(() => note.textContent()).toContain(`Nina Newcomer <${nina}> now takes Ada Signer’s place`);
    // The page shows the new state: Nina in the place, notified, and whom she replaced.
    const ninaRow = rowOf('Nina Newcomer');
    expect(await ninaRow.locator('.badge').textContent()).toBe('Notified');
    expect(await ninaRow.locator('.replaced-people li').textContent()).toMatch(
      new RegExp(
        `^In place of Ada Signer <${ada.replace(/[.+]/g, '\\$&')}>, replaced \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC$`,
      ),
    );
    expect(await rowOf('Ada Signer').count()).toBe(1); // only as the one replaced, in Nina's row
    await shoot(page, 'envelope-replaced-desktop');
    // Nina is emailed her own link; Ada's is dead (404 "Link not valid": replaced links are gone).
    const [ninaLink] = await tokensTo(nina, 1);
    expect((await pageCall('/envelope/api/recipient', ninaLink ?? '')).status).toBe(200);
    expect((await pageCall('/envelope/api/recipient', resentLink)).status).toBe(404);
    expect(await mailTo(ada)).toHaveLength(2);
    const api = (await (
      await fetch(`${baseUrl}/api/v1/envelopes/${envelopeId}`, { headers: auth(apiKey) })
    ).json()) as Envelope;
    expect(api.recipients[0]).toMatchObject({
      name: 'Nina Newcomer',
      email: nina,
      status: 'notified',
      replaces: [{ name: 'Ada Signer', email: ada }],
    });

    // Cancel: every link ends (410), and no correction is offered any more.
    await page.getByRole('button', { name: 'Cancel envelope' }).click();
    await page.locator('dialog').getByRole('button', { name: 'Cancel envelope' }).click();
    await poll(() => page.locator('main .badge.canceled').first().textContent()).toBe('Canceled');
    expect(await page.locator('main tr[data-recipient] button').count()).toBe(0);
    expect((await pageCall('/envelope/api/recipient', ninaLink ?? '')).status).toBe(410);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('lists, adds and removes the embed origins (checked as the API checks them)', async () => {
    const { page, context, problems } = await openSignedIn(PHONE);
    const puts: string[] = [];
    page.on('request', (req) => {
      if (req.method() === 'PUT') puts.push(req.postData() ?? '');
    });
    const originsOfApi = async () =>
      (
        (await (
          await fetch(`${baseUrl}/api/v1/account/embed-origins`, { headers: auth(apiKey) })
        ).json()) as {
          origins: string[];
        }
      ).origins;
    await page.goto(`${baseUrl}/dashboard#/envelopes`);
    await poll(() => heading(page).textContent()).toBe('Envelopes');
    await page.getByRole('link', { name: 'Embedding' }).click();
    await poll(() => heading(page).textContent()).toBe('Embedding');
    await page.getByText('No origins: embedded signing is off.').waitFor();
    await expectNoSideScroll(page);

    // Refused on the page in the API's words, without a request.
    const origin = page.getByLabel('Origin', { exact: true });
    const alert = page.locator('.form-status [role="alert"]');
    await origin.fill('http://shop.example.com');
    await page.getByRole('button', { name: 'Add origin' }).click();
    await poll(() => alert.textContent()).toBe(
      'http://shop.example.com: http is allowed for localhost only; use https',
    );
    expect(await origin.getAttribute('aria-invalid')).toBe('true');
    await origin.fill('https://shop.example.com/embed');
    await origin.press('Enter');
    await poll(() => alert.textContent()).toBe(
      'https://shop.example.com/embed is not an origin: https://host[:port], without a path',
    );
    expect(puts).toEqual([]);

    // Added as the browser names it; then a development origin, with the keyboard.
    await origin.fill('https://Shop.Example.com:443');
    await origin.press('Enter');
    await page.locator('tr[data-origin="https://shop.example.com"]').waitFor();
    expect(await originsOfApi()).toEqual(['https://shop.example.com']);
    await origin.fill('http://localhost:5173');
    await origin.press('Enter');
    await page.locator('tr[data-origin="http://localhost:5173"]').waitFor();
    expect(await originsOfApi()).toEqual(['https://shop.example.com', 'http://localhost:5173']);
    await origin.fill('https://shop.example.com');
    await origin.press('Enter');
    await poll(() => alert.textContent()).toBe('https://shop.example.com is already allowed.');
    await expectNoSideScroll(page);
    await shoot(page, 'embedding-phone');

    // Removed after a confirmation.
    await page.getByRole('button', { name: 'Remove https://shop.example.com' }).click();
    await page.locator('dialog').getByRole('button', { name: 'Remove origin' }).click();
    await poll(() => page.locator('tr[data-origin]').count()).toBe(1);
    expect(await originsOfApi()).toEqual(['http://localhost:5173']);
    expect(puts).toHaveLength(3);
    await page.getByRole('button', { name: 'Remove http://localhost:5173' }).click();
    await page.locator('dialog').getByRole('button', { name: 'Remove origin' }).click();
    await page.getByText('No origins: embedded signing is off.').waitFor();
    expect(await originsOfApi()).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a send as a one-signer envelope: named by its send ID, resend offered, replace not', async () => {
    const recipient = newRecipient();
    const res = await send(apiKey, { pdf, recipientEmail: recipient, fileName: 'sent-alone.pdf' });
    expect(res.status).toBe(201);
    const sent = (await res.json()) as SendResult;
    await waitForMail(recipient, /^Please sign/);
    const envelopeId = `env_${sent.sendId.slice('send_'.length)}`;

    const { page, context, problems } = await openSignedIn();
    await page.goto(`${baseUrl}/dashboard#/envelopes`);
    await poll(() => page.locator('main').textContent()).toContain('sent-alone.pdf');
    await page.goto(`${baseUrl}/dashboard#/envelope/${envelopeId}`);
    await poll(() => heading(page).textContent()).toBe('sent-alone.pdf');
    expect(await page.locator('main').textContent()).toContain(sent.sendId);
    const actions = page.locator('tr[data-recipient]', { hasText: 'Grace Hopper' }).locator('button');
    expect(await actions.allTextContents()).toEqual(['Resend']);
    await page.getByRole('button', { name: 'Resend the email to Grace Hopper' }).click();
    await poll(() => page.locator('main .message.success').textContent()).toContain(
      'A new email is on its way',
    );
    await waitForMail(recipient, /^Please sign/, 2);
    expect(problems).toEqual([]);
    await context.close();
  });
});
