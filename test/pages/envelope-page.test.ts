/**
 * The envelope signing page (web/envelope), page-level: the BUILT page and its bundles (`pnpm
 * build:web`; built here when missing or stale) served by a small local server with the gateway's own static mount and
 * CSP, and /envelope/api/* answered with fixed JSON and a real PDF (makePdf). It checks what the page
 * does in a real Chromium: fields overlaid where the API's percentages put them, the guide and its
 * count, Finish refused while a required field is empty, the sign/approve/decline bodies, a phone's
 * width, keyboard-only signing, and no request to another origin.
 *
 * Not an end-to-end test: no gateway operation, NATS or document-store is involved here (the
 * end-to-end test through the stack lives in test/e2e).
 */
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makePdf } from '@esign/testing';
import { drawOn, reply, type Answer, type ApiCall, startPageSuite, type PageSuite } from './page-harness';

/** Screenshots of the page (phone, desktop), for a person to look at. */
const screenshotDir = process.env.E2E_SCREENSHOTS ?? tmpdir();

const TOKEN = 'Ab3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0nP_-';
const A4 = { width: 595.28, height: 841.89 };

interface Field {
  type: 'signature' | 'initials' | 'date' | 'name' | 'email' | 'text' | 'checkbox';
  page: number;
  x: number;
  y: number;
  width: number;
  height?: number;
  required: boolean;
  label?: string;
  value?: string;
}

const SIGNER_FIELDS: Field[] = [
  { type: 'signature', page: 0, x: 10, y: 70, width: 30, required: true },
  { type: 'initials', page: 1, x: 80, y: 90, width: 12, required: true },
  { type: 'date', page: 0, x: 50, y: 70, width: 20, required: true },
  { type: 'name', page: 0, x: 50, y: 75, width: 30, required: true },
  { type: 'text', page: 1, x: 10, y: 20, width: 40, required: true, label: 'City' },
  { type: 'checkbox', page: 1, x: 10, y: 30, width: 3, required: true, label: 'I agree' },
  { type: 'text', page: 1, x: 10, y: 40, width: 40, required: false, value: 'Prefilled note' },
  { type: 'email', page: 0, x: 50, y: 80, width: 30, required: true, height: 4 },
];

const viewOf = (role: 'signer' | 'approver', fields: Field[]) => ({
  envelopeId: 'env_0123456789abcdefghijklmn',
  envelopeStatus: 'pending',
  fileName: 'lease.pdf',
  subject: 'Please sign: the lease',
  message: 'Hello <b>Ada</b>\nSee page 2.',
  senderEmail: 'owner@example.com',
  pageCount: 2,
  expiresAt: '2030-01-31T12:00:00.000Z',
  recipient: { name: 'Ada Lovelace', email: 'ada@example.com', role, order: 2, status: 'notified', fields },
  others: [
    { name: 'Charles Babbage', role: 'signer', order: 1, status: 'signed' },
    { name: 'Mary Somerville', role: 'approver', order: 3, status: 'waiting' },
  ],
});

/** What the fake API answers, per test, and every call it received. */
let answers: {
  recipient: Answer;
  sign: Answer[];
  approve: Answer;
  decline: Answer;
};
let calls: ApiCall[];

const acted = (status: string, completing: boolean) => ({
  status: 200,
  json: { status, actedAt: '2030-01-01T00:00:00.000Z', envelopeStatus: 'pending', completing },
});

let suite: PageSuite;
let pdf: Buffer;

beforeAll(async () => {
  pdf = await makePdf({ pages: 2, size: [A4.width, A4.height], text: 'Lease' });
  suite = await startPageSuite({
    name: 'envelope',
    route: '/e/:token',
    api: '/envelope/api',
    pdf,
    record: (call) => calls.push(call),
    answer: (app) => {
      app.get('/envelope/api/recipient', (_req, res) => reply(res, answers.recipient));
      app.post('/envelope/api/sign', (_req, res) => reply(res, answers.sign.shift()));
      app.post('/envelope/api/approve', (_req, res) => reply(res, answers.approve));
      app.post('/envelope/api/decline', (_req, res) => reply(res, answers.decline));
    },
  });
}, 60_000);

afterAll(async () => {
  await suite?.close();
});

beforeEach(() => {
  calls = [];
  answers = {
    recipient: { status: 200, json: viewOf('signer', SIGNER_FIELDS) },
    sign: [acted('signed', false)],
    approve: acted('approved', true),
    decline: { status: 200, json: acted('declined', false).json },
  };
});

/** The page on the link, watching for requests to any other origin and for script errors. */
const open = (viewport?: { width: number; height: number }) => suite.open(`/e/${TOKEN}`, viewport);

/** The page is ready: every page drawn and the view reported. */
const ready = async (page: Page) => {
  await page.locator('.pdf-page').nth(1).waitFor();
  await expect.poll(() => calls.filter((c) => c.path === '/view').length).toBe(1);
};

const remaining = (page: Page) => page.locator('#remaining').textContent();
const box = (page: Page, index: number) => page.locator(`[data-field="${index}"]`);

/** Checks the page made only same-origin calls, each /envelope/api call with the link's token. */
const expectCleanRun = (run: { foreign: string[]; errors: string[] }) => {
  expect(run.foreign).toEqual([]);
  expect(run.errors).toEqual([]);
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls) expect(call.token).toBe(TOKEN);
};

/** Presses Tab until the focused element matches `selector` (keyboard only; fails after 80 presses). */
const tabTo = async (page: Page, selector: string) => {
  for (let i = 0; i < 80; i++) {
    if (await page.evaluate<boolean>(`document.activeElement?.matches(${JSON.stringify(selector)}) ?? false`))
      return;
    await page.keyboard.press('Tab');
  }
  throw new Error(`Tab never reached ${selector}`);
};

/** The focused element: its id, else the index of the field it is in, else its tag. */
const focused = (page: Page) =>
  page.evaluate<string>(`(() => {
    const el = document.activeElement;
    if (!el) return '';
    return el.id || (el.closest('[data-field]')?.getAttribute('data-field') ?? el.tagName);
  })()`);

describe('envelope signing page', () => {
  it("overlays only this recipient's fields at their boxes, shows the envelope as text, records the view once", async () => {
    const run = await open();
    const { page } = run;
    await ready(page);
    expect(await page.locator('#title').textContent()).toBe('Please sign: the lease');
    expect(await page.locator('#intro').textContent()).toContain(
      'owner@example.com asks Ada Lovelace to sign',
    );
    // The sender's message is text: the markup shown, never applied.
    expect(await page.locator('#sender-message-text').textContent()).toBe('Hello <b>Ada</b>\nSee page 2.');
    expect(await page.locator('#sender-message-text b').count()).toBe(0);
    expect(await page.locator('#others-list li').allTextContents()).toEqual([
      'Charles Babbage – Signer, group 1: signed',
      'Mary Somerville – Approver, group 3: waiting for their turn',
    ]);
    expect(await page.locator('.field-box').count()).toBe(SIGNER_FIELDS.length);
    // In the page in reading order (page, top, left): the order the keyboard visits them.
    const domOrder: (string | null)[] = [];
    for (let i = 0; i < SIGNER_FIELDS.length; i++)
      domOrder.push(await page.locator('.field-box').nth(i).getAttribute('data-field'));
    expect(domOrder).toEqual(['0', '2', '3', '7', '4', '5', '6', '1']);

    for (const [index, field] of SIGNER_FIELDS.entries()) {
      const pageBox = await page.locator('.pdf-page').nth(field.page).boundingBox();
      const fieldBox = await box(page, index).boundingBox();
      if (!pageBox || !fieldBox) throw new Error(`no box for field ${index}`);
      // On its own page (inside it), at x/y/width in percent of the page, top-left origin.
      expect(await box(page, index).locator('xpath=ancestor::figure[1]').getAttribute('data-page')).toBe(
        String(field.page),
      );
      expect(Math.abs(fieldBox.x - (pageBox.x + (pageBox.width * field.x) / 100))).toBeLessThan(1.5);
      expect(Math.abs(fieldBox.y - (pageBox.y + (pageBox.height * field.y) / 100))).toBeLessThan(1.5);
      expect(Math.abs(fieldBox.width - (pageBox.width * field.width) / 100)).toBeLessThan(1.5);
      // Heights: as given, else a third of the width (signature, initials), a square (checkbox), 3% (the rest).
      const expectedHeight =
        field.height !== undefined
          ? (pageBox.height * field.height) / 100
          : field.type === 'signature' || field.type === 'initials'
            ? fieldBox.width / 3
            : field.type === 'checkbox'
              ? fieldBox.width
              : pageBox.height * 0.03;
      expect(Math.abs(fieldBox.height - expectedHeight)).toBeLessThan(1.5);
    }
    // Filled in for the signer, read-only: today's date (UTC, as the gateway draws it), name, email.
    const today = new Date().toISOString().slice(0, 10);
    expect(await box(page, 2).locator('input').inputValue()).toBe(today);
    expect(await box(page, 2).locator('input').getAttribute('readonly')).not.toBeNull();
    expect(await box(page, 3).locator('input').inputValue()).toBe('Ada Lovelace');
    expect(await box(page, 7).locator('input').inputValue()).toBe('ada@example.com');
    expect(await box(page, 6).locator('input').inputValue()).toBe('Prefilled note');
    expect(await box(page, 5).locator('input[type=checkbox]').count()).toBe(1);
    expect(await box(page, 0).textContent()).toBe('Sign here');
    expect(await page.locator('#initials-part').isVisible()).toBe(true);
    await page.screenshot({ path: join(screenshotDir, 'envelope-desktop.png'), fullPage: true });

    // One page load records exactly one view, after both pages were drawn.
    await expect.poll(() => calls.filter((c) => c.path === '/view').length).toBe(1);
    // And only one: nothing else reports it a moment later.
    await page.waitForTimeout(300);
    expect(calls.filter((c) => c.path === '/view')).toHaveLength(1);
    const order = calls.map((c) => `${c.method} ${c.path}`);
    expect(order.slice(0, 3)).toEqual(['GET /recipient', 'GET /document', 'POST /view']);
    expectCleanRun(run);
    await page.close();
  });

  it('counts required fields down, refuses Finish while one is empty (no POST), shows a 400, then signs with signature, initials and values by index', async () => {
    answers.sign = [{ status: 400, json: { error: 'fields[4] (City): required' } }, acted('signed', false)];
    const run = await open();
    const { page } = run;
    await ready(page);
    // Signature, initials, City and the agreement box; the date/name/email are filled, the note optional.
    expect(await remaining(page)).toBe('4 required fields left');

    await page.locator('#finish-button').click();
    expect(await page.locator('#finish-error').textContent()).toContain(
      'Please fill every required field first: 4 required fields are still empty',
    );
    expect(calls.filter((c) => c.path === '/sign')).toHaveLength(0);
    // Refused, the page takes the signer to the first empty required field in reading order.
    expect(await focused(page)).toBe('0');
    await box(page, 0).click();
    expect(await focused(page)).toBe('signature-canvas');
    await drawOn(page, '#signature-pad .sig-canvas');
    expect(await remaining(page)).toBe('3 required fields left');
    expect(await box(page, 0).locator('img').count()).toBe(1);

    await page.locator('#next-field').click();
    expect(await focused(page)).toBe('4');
    await page.keyboard.type('Lisbon');
    expect(await remaining(page)).toBe('2 required fields left');
    await page.locator('#next-field').click();
    expect(await focused(page)).toBe('5');
    await box(page, 5).locator('input').check();
    expect(await remaining(page)).toBe('1 required field left');

    // Still refused: the initials are missing.
    await page.locator('#finish-button').click();
    expect(await page.locator('#finish-error').textContent()).toContain('1 required field is still empty');
    expect(await focused(page)).toBe('1');
    expect(calls.filter((c) => c.path === '/sign')).toHaveLength(0);

    await page.locator('#initials-pad input[value="type"]').check();
    expect(await page.locator('#initials-typed').inputValue()).toBe('AL');
    expect(await remaining(page)).toBe('All required fields are filled: you can finish.');
    expect(await box(page, 1).locator('img').count()).toBe(1);
    await box(page, 6).locator('input').fill('  ');

    // The server's 400 is shown as it is.
    await page.locator('#finish-button').click();
    await expect.poll(() => page.locator('#finish-error').textContent()).toBe('fields[4] (City): required');
    expect(await page.locator('#finish-button').isEnabled()).toBe(true);

    await page.locator('#finish-button').click();
    await page.locator('#done-heading').filter({ hasText: 'Signed' }).waitFor();
    expect(await page.locator('#done-message').textContent()).toContain(
      'The others on this envelope are asked next',
    );
    const signs = calls.filter((c) => c.path === '/sign');
    expect(signs).toHaveLength(2);
    const body = signs[1]?.body as {
      signature: { mode: string; imageBase64: string };
      initials: unknown;
      values: unknown;
    };
    expect(body.signature.mode).toBe('draw');
    // A PNG, base64.
    expect(Buffer.from(body.signature.imageBase64, 'base64').subarray(1, 4).toString()).toBe('PNG');
    expect(body.initials).toEqual({ mode: 'type', typedName: 'AL', color: '#111827' });
    expect(body.values).toEqual({ '4': 'Lisbon', '5': true, '6': '  ' });
    expect(await page.locator('#act-panel').isVisible()).toBe(false);
    expect(await page.locator('#guide').isVisible()).toBe(false);
    expectCleanRun(run);
    await page.close();
  });

  it('a signer completes with the keyboard alone: typed signature, text and checkbox, visible focus', async () => {
    answers.recipient = {
      status: 200,
      json: viewOf('signer', [
        { type: 'signature', page: 1, x: 10, y: 60, width: 30, required: true },
        { type: 'text', page: 0, x: 10, y: 20, width: 40, required: true, label: 'City' },
        { type: 'checkbox', page: 0, x: 10, y: 30, width: 4, required: true, label: 'I agree' },
      ]),
    };
    answers.sign = [acted('signed', true)];
    const run = await open();
    const { page } = run;
    await ready(page);
    expect(await page.locator('#initials-part').isVisible()).toBe(false);
    expect(await remaining(page)).toBe('3 required fields left');

    await tabTo(page, '#next-field');
    // A visible focus ring on the keyboard-focused button.
    expect(
      await page.evaluate<boolean>(`(() => {
        const style = getComputedStyle(document.activeElement);
        return style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) >= 2;
      })()`),
    ).toBe(true);
    await page.keyboard.press('Enter');
    expect(await focused(page)).toBe('1');
    await page.keyboard.type('Porto');
    // The field's box shows the focus of the input inside it.
    expect(
      await page.evaluate<string>(
        `getComputedStyle(document.activeElement.closest('[data-field]')).outlineStyle`,
      ),
    ).not.toBe('none');
    expect(await remaining(page)).toBe('2 required fields left');

    await tabTo(page, '#next-field');
    await page.keyboard.press('Enter');
    expect(await focused(page)).toBe('2');
    await page.keyboard.press('Space');
    expect(await remaining(page)).toBe('1 required field left');

    await tabTo(page, '#next-field');
    await page.keyboard.press('Enter');
    expect(await focused(page)).toBe('0');
    await page.keyboard.press('Enter');
    expect(await focused(page)).toBe('signature-canvas');
    // From the drawing area, T switches to typing; the typed name starts as the recipient's.
    await page.keyboard.press('t');
    expect(await focused(page)).toBe('signature-typed');
    await page.keyboard.press('ControlOrMeta+a');
    await page.keyboard.type('Ada L.');
    expect(await remaining(page)).toBe('All required fields are filled: you can finish.');

    await tabTo(page, '#next-field');
    expect(await page.locator('#next-field').textContent()).toBe('Go to Finish');
    await page.keyboard.press('Enter');
    expect(await focused(page)).toBe('finish-button');
    await page.keyboard.press('Enter');
    await page.locator('#done-heading').filter({ hasText: 'Signed' }).waitFor();
    expect(await page.locator('#done-message').textContent()).toContain('the document is being sealed');
    const sign = calls.find((c) => c.path === '/sign');
    expect(sign?.body).toEqual({
      signature: { mode: 'type', typedName: 'Ada L.', color: '#111827' },
      values: { '1': 'Porto', '2': true },
    });
    expectCleanRun(run);
    await page.close();
  });

  it('fits a 375 px wide phone screen without horizontal scrolling', async () => {
    const run = await open({ width: 375, height: 740 });
    const { page } = run;
    await ready(page);
    await page.locator('#act-panel').waitFor();
    const widths = await page.evaluate<{ scroll: number; client: number }>(
      '({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth })',
    );
    expect(widths.client).toBe(375);
    expect(widths.scroll).toBeLessThanOrEqual(widths.client);
    const pageBox = await page.locator('.pdf-page').first().boundingBox();
    expect(pageBox && pageBox.x >= 0 && pageBox.x + pageBox.width <= 375).toBe(true);
    // The guide stays in reach at the bottom of the screen.
    const guide = await page.locator('#guide').boundingBox();
    expect(guide && guide.y + guide.height).toBeCloseTo(740, 0);
    await page.screenshot({ path: join(screenshotDir, 'envelope-phone.png'), fullPage: true });
    expectCleanRun(run);
    await page.close();
  });

  it('an approver approves; the fields and the guide are a signer’s only', async () => {
    answers.recipient = { status: 200, json: viewOf('approver', []) };
    const run = await open();
    const { page } = run;
    await ready(page);
    expect(await page.locator('#intro').textContent()).toContain('asks Ada Lovelace to approve');
    expect(await page.locator('#act-heading').textContent()).toBe('Approve this document');
    expect(await page.locator('#guide').isVisible()).toBe(false);
    expect(await page.locator('#signer-part').isVisible()).toBe(false);
    expect(await page.locator('.field-box').count()).toBe(0);
    await page.locator('#approve-button').click();
    await page.locator('#done-heading').filter({ hasText: 'Approved' }).waitFor();
    expect(await page.locator('#done-message').textContent()).toContain('the document is being sealed');
    expect(calls.filter((c) => c.method === 'POST').map((c) => c.path)).toEqual(['/view', '/approve']);
    expectCleanRun(run);
    await page.close();
  });

  it('declining needs a reason (no POST without one) and sends it', async () => {
    answers.recipient = { status: 200, json: viewOf('approver', []) };
    const run = await open();
    const { page } = run;
    await ready(page);
    await page.locator('#decline-open').click();
    expect(await focused(page)).toBe('decline-reason');
    await page.locator('#decline-reason').fill('   ');
    await page.locator('#decline-button').click();
    expect(await page.locator('#decline-error').textContent()).toBe(
      'Please tell the sender why you decline (a reason is required).',
    );
    expect(calls.filter((c) => c.path === '/decline')).toHaveLength(0);
    await page.locator('#decline-reason').fill('The start date is wrong.');
    await page.locator('#decline-button').click();
    await page.locator('#done-heading').filter({ hasText: 'Declined' }).waitFor();
    expect(calls.filter((c) => c.path === '/decline').map((c) => c.body)).toEqual([
      { reason: 'The start date is wrong.' },
    ]);
    expect(calls.some((c) => c.path === '/approve')).toBe(false);
    expectCleanRun(run);
    await page.close();
  });

  it('a signer may decline too', async () => {
    const run = await open();
    const { page } = run;
    await ready(page);
    await page.locator('#decline-open').click();
    await page.locator('#decline-reason').fill('Wrong tenant name.');
    await page.locator('#decline-reason').press('Tab');
    await page.keyboard.press('Enter');
    await page.locator('#done-heading').filter({ hasText: 'Declined' }).waitFor();
    expect(calls.filter((c) => c.path === '/decline').map((c) => c.body)).toEqual([
      { reason: 'Wrong tenant name.' },
    ]);
    expect(calls.some((c) => c.path === '/sign')).toBe(false);
    expectCleanRun(run);
    await page.close();
  });

  it('an ended link shows the server’s message (410); an unknown one says the link is not valid (404)', async () => {
    answers.recipient = {
      status: 410,
      json: { error: 'Everyone has signed: the completed document was emailed to you.', status: 'completed' },
    };
    const ended = await open();
    await ended.page.locator('#done').waitFor();
    expect(await ended.page.locator('#done-heading').textContent()).toBe('Envelope complete');
    expect(await ended.page.locator('#done-message').textContent()).toBe(
      'Everyone has signed: the completed document was emailed to you.',
    );
    expect(calls.map((c) => c.path)).toEqual(['/recipient']);
    expectCleanRun(ended);
    await ended.page.close();

    calls = [];
    answers.recipient = { status: 404, json: { error: 'This link is not valid.' } };
    const unknown = await open();
    await unknown.page.locator('#done').waitFor();
    expect(await unknown.page.locator('#done-heading').textContent()).toBe('Link not valid');
    expect(await unknown.page.locator('#done-message').textContent()).toBe('This link is not valid.');
    expect(await unknown.page.locator('#document').isVisible()).toBe(false);
    expectCleanRun(unknown);
    await unknown.page.close();
  });
});
