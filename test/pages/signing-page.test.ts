/**
 * The send's signing page (web/signing, the link `/s/<token>`), page-level as envelope-page.test.ts:
 * the BUILT page served with the gateway's static mount and CSP, /signing/api/* answered with fixed
 * JSON and a real PDF, in Chromium. It pins what the page says and does around the calls: the request
 * shown as text, the view recorded once, the name and signature checked before signing, a failed call
 * shown next to what was tried (and tried again), the decline form, and a link that ended (410) or
 * never was (404) ending the page. The end-to-end test through the stack is test/e2e/send.test.ts.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_DECLINE_REASON_LENGTH } from '@esign/contracts/constants';
import { makePdf } from '@esign/testing';
import {
  drawOn,
  reply,
  type Answer,
  type ApiCall,
  type WatchedPage,
  startPageSuite,
  type PageSuite,
} from './page-harness';

const TOKEN = 'Sb3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0nP_-';

const REQUEST = {
  status: 'pending',
  fileName: 'contract.pdf',
  recipientName: 'Grace Hopper',
  recipientEmail: 'grace@example.com',
  senderEmail: 'owner@example.com',
  message: 'Hello <b>Grace</b>\nPage 2, please.',
  auditId: 'aud_0123456789abcdefghijklmn',
  positions: [{ page: 1, x: 10, y: 70, width: 30 }],
  pageCount: 2,
  expiresAt: '2030-01-31T12:00:00.000Z',
  viewedAt: null,
};

let answers: { request: Answer; sign: Answer[]; decline: Answer[] };
let calls: ApiCall[];
let suite: PageSuite;
let pdf: Buffer;

beforeAll(async () => {
  pdf = await makePdf({ pages: 2, text: 'Contract' });
  suite = await startPageSuite({
    name: 'signing',
    route: '/s/:token',
    api: '/signing/api',
    pdf,
    record: (call) => calls.push(call),
    answer: (app) => {
      app.get('/signing/api/request', (_req, res) => reply(res, answers.request));
      app.post('/signing/api/sign', (_req, res) => reply(res, answers.sign.shift()));
      app.post('/signing/api/decline', (_req, res) => reply(res, answers.decline.shift()));
    },
  });
}, 60_000);

afterAll(async () => {
  await suite?.close();
});

beforeEach(() => {
  calls = [];
  answers = { request: { status: 200, json: REQUEST }, sign: [], decline: [] };
});

const open = () => suite.open(`/s/${TOKEN}`);

/** The page is ready: both pages drawn and the view reported. */
const ready = async (page: Page) => {
  await page.locator('.pdf-page').nth(1).waitFor();
  await expect.poll(() => calls.filter((c) => c.path === '/view').length).toBe(1);
  await page.locator('#sign-panel').waitFor();
};

const posts = (path: string) => calls.filter((c) => c.method === 'POST' && c.path === path);
const focusedId = (page: Page) => page.evaluate<string>('document.activeElement?.id ?? ""');
const text = (page: Page, selector: string) => page.locator(selector).textContent();

/** Only same-origin calls, each with the link's token, and no script error. */
const expectCleanRun = (run: WatchedPage) => {
  expect(run.foreign).toEqual([]);
  expect(run.errors).toEqual([]);
  expect(calls.length).toBeGreaterThan(0);
  for (const call of calls) expect(call.token).toBe(TOKEN);
};

describe('send signing page', () => {
  it('shows the request as text, checks name and signature first, shows a failed sign and signs on a retry', async () => {
    answers.sign = [
      { status: 400, json: { error: 'The signature image is too large.' } },
      { status: 200, json: { auditId: 'aud_signed0123456789abcdefg', signedAt: '2030-01-02T00:00:00.000Z' } },
    ];
    const run = await open();
    const { page } = run;
    await ready(page);
    expect(await text(page, '#title')).toBe('Sign “contract.pdf”');
    expect(await text(page, '#intro')).toMatch(
      /^owner@example\.com asks Grace Hopper to sign this document\. The link works until .*2030\.$/,
    );
    expect(await text(page, '#sender-message-from')).toBe('Message from owner@example.com');
    expect(await text(page, '#sender-message-text')).toBe('Hello <b>Grace</b>\nPage 2, please.');
    expect(await page.locator('#sender-message-text b').count()).toBe(0);
    expect(await text(page, '#status')).toBe('The document has 2 pages.');
    expect(await page.locator('.pdf-page').nth(1).locator('.sig-box').getAttribute('aria-label')).toBe(
      'Signature box 1 on page 2: go to signing',
    );
    expect(await page.locator('#signer-name').inputValue()).toBe('Grace Hopper');

    // Nothing is sent without a signature, nor without a name.
    await page.locator('#sign-button').click();
    expect(await text(page, '#sign-error')).toBe('Please draw or type your signature first.');
    await drawOn(page, '.sig-canvas');
    expect(await page.locator('#sign-error').isHidden()).toBe(true);
    await page.locator('#signer-name').fill('  ');
    await page.locator('#sign-button').click();
    expect(await text(page, '#sign-error')).toBe('Please confirm your full name.');
    expect(await focusedId(page)).toBe('signer-name');
    expect(posts('/sign')).toHaveLength(0);

    // A refused sign is shown next to the button, which works again.
    await page.locator('#signer-name').fill('Grace B. Hopper');
    await page.locator('#sign-button').click();
    await page.locator('#sign-error').filter({ hasText: 'The signature image is too large.' }).waitFor();
    expect(await page.locator('#sign-button').isEnabled()).toBe(true);
    expect(await page.locator('#decline-open').isEnabled()).toBe(true);
    expect(await text(page, '#status')).toBe('');

    await page.locator('#sign-button').click();
    await page.locator('#done-heading').filter({ hasText: 'Signed' }).waitFor();
    expect(await text(page, '#done-message')).toBe(
      'Thank you, the document is signed (audit ID aud_signed0123456789abcdefg). A copy of the signed PDF is on its way to grace@example.com by email.',
    );
    expect(await focusedId(page)).toBe('done');
    expect(await page.locator('#sign-panel').isHidden()).toBe(true);
    expect(await page.locator('#document').isVisible()).toBe(true);
    const bodies = posts('/sign').map((c) => c.body as { signerName: string; signature: { mode: string } });
    expect(bodies.map((b) => [b.signerName, b.signature.mode])).toEqual([
      ['Grace B. Hopper', 'draw'],
      ['Grace B. Hopper', 'draw'],
    ]);
    expectCleanRun(run);
    await page.close();
  });

  it('declining needs a reason, Back returns to signing, a failed decline can be sent again', async () => {
    answers.decline = [
      { status: 503, json: { error: 'The service is busy. Please try again.' } },
      { status: 200, json: { status: 'declined', declinedAt: '2030-01-02T00:00:00.000Z' } },
    ];
    const run = await open();
    const { page } = run;
    await ready(page);
    await page.locator('#decline-open').click();
    expect(await focusedId(page)).toBe('decline-reason');
    expect(await page.locator('#decline-reason').getAttribute('maxlength')).toBe(
      String(MAX_DECLINE_REASON_LENGTH),
    );
    await page.locator('#decline-reason').fill('   ');
    await page.locator('#decline-button').click();
    expect(await text(page, '#decline-error')).toBe(
      'Please tell the sender why you decline (a reason is required).',
    );
    expect(await focusedId(page)).toBe('decline-reason');
    await page.locator('#decline-close').click();
    expect(await page.locator('#decline-form').isHidden()).toBe(true);
    expect(await page.locator('#decline-error').isHidden()).toBe(true);
    expect(await focusedId(page)).toBe('decline-open');
    expect(posts('/decline')).toHaveLength(0);

    await page.locator('#decline-open').click();
    await page.locator('#decline-reason').fill('The amount in section 2 is wrong.');
    await page.locator('#decline-button').click();
    await page
      .locator('#decline-error')
      .filter({ hasText: 'The service is busy. Please try again.' })
      .waitFor();
    expect(await page.locator('#decline-button').isEnabled()).toBe(true);
    // The status line still says what it said: only signing writes to it.
    expect(await text(page, '#status')).toBe('The document has 2 pages.');

    await page.locator('#decline-button').click();
    await page.locator('#done-heading').filter({ hasText: 'Declined' }).waitFor();
    expect(await text(page, '#done-message')).toBe(
      'You declined to sign. The sender has been told, with your reason.',
    );
    expect(await page.locator('#document').isVisible()).toBe(true);
    expect(posts('/decline').map((c) => c.body)).toEqual([
      { reason: 'The amount in section 2 is wrong.' },
      { reason: 'The amount in section 2 is wrong.' },
    ]);
    expect(posts('/sign')).toHaveLength(0);
    expectCleanRun(run);
    await page.close();
  });

  it('a link that ended while open ends the page with why (410) and hides the document', async () => {
    answers.sign = [{ status: 410, json: { error: 'This document was signed already.', status: 'signed' } }];
    const run = await open();
    const { page } = run;
    await ready(page);
    await page.locator('label[for="sig-mode-type"]').click();
    await page.locator('#sign-button').click();
    await page.locator('#done').waitFor();
    expect(await text(page, '#done-heading')).toBe('Already signed');
    expect(await text(page, '#done-message')).toBe('This document was signed already.');
    expect(await page.locator('#document').isHidden()).toBe(true);
    expect(await page.locator('#sign-panel').isHidden()).toBe(true);
    expect(await page.locator('#error').isHidden()).toBe(true);
    expect(await text(page, '#status')).toBe('');
    expectCleanRun(run);
    await page.close();
  });

  it('a link that ended or never was says so at once; any other failure is shown as an error', async () => {
    const cases: { answer: Answer; heading?: string; error?: string }[] = [
      {
        answer: { status: 410, json: { error: 'The sender canceled this request.', status: 'canceled' } },
        heading: 'Request canceled',
      },
      {
        answer: { status: 410, json: { error: 'The signer declined.', status: 'declined' } },
        heading: 'Request declined',
      },
      { answer: { status: 410, json: { error: 'This link has expired.' } }, heading: 'Link expired' },
      { answer: { status: 404, json: { error: 'This link is not valid.' } }, heading: 'Link not valid' },
      {
        answer: { status: 503, json: { error: 'The service is unavailable.' } },
        error: 'The service is unavailable.',
      },
    ];
    for (const { answer, heading, error } of cases) {
      calls = [];
      answers.request = answer;
      const run = await open();
      const { page } = run;
      if (heading !== undefined) {
        await page.locator('#done').waitFor();
        expect(await text(page, '#done-heading')).toBe(heading);
        expect(await text(page, '#done-message')).toBe((answer.json as { error: string }).error);
        expect(await page.locator('#document').isHidden()).toBe(true);
      } else {
        await page.locator('#error').filter({ hasText: error }).waitFor();
        expect(await page.locator('#done').isHidden()).toBe(true);
      }
      expect(await page.locator('#sign-panel').isHidden()).toBe(true);
      expect(calls.map((c) => c.path)).toEqual(['/request']);
      expectCleanRun(run);
      await page.close();
    }
  });
});
