/**
 * The envelope page's one-time code step (web/envelope/code-step.ts), page-level as
 * envelope-page.test.ts: the BUILT page served with the gateway's static mount and CSP, /envelope/api/*
 * answered with fixed JSON and a real PDF, in Chromium. A recipient whose view says `codeRequired`
 * sees the code step first and nothing of the document is asked for until the code is accepted; wrong,
 * expired/locked and rate-limited answers are shown in the gateway's words; "Send a new code" asks for
 * one. The end-to-end test through the stack is test/e2e/envelope-code.test.ts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { makePdf } from '@esign/testing';
import { reply, type Answer, type ApiCall, startPageSuite, type PageSuite } from './page-harness';

const TOKEN = 'Zb3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0nP_-';

const view = (codeRequired: boolean) => ({
  envelopeId: 'env_0123456789abcdefghijklmn',
  envelopeStatus: 'pending',
  fileName: 'lease.pdf',
  subject: 'Please approve: the lease',
  message: null,
  senderEmail: 'owner@example.com',
  pageCount: 1,
  expiresAt: '2030-01-31T12:00:00.000Z',
  recipient: {
    name: 'Ada Lovelace',
    email: 'ada@example.com',
    role: 'approver',
    order: 1,
    status: 'notified',
    fields: [],
  },
  others: [],
  codeRequired,
});

let answers: { recipient: Answer; verify: Answer[]; request: Answer[] };
let calls: ApiCall[];
let suite: PageSuite;
let pdf: Buffer;

beforeAll(async () => {
  pdf = await makePdf({ pages: 1, text: 'Lease' });
  suite = await startPageSuite({
    name: 'envelope',
    route: '/e/:token',
    api: '/envelope/api',
    pdf,
    record: (call) => calls.push(call),
    answer: (app) => {
      app.get('/envelope/api/recipient', (_req, res) => reply(res, answers.recipient));
      app.post('/envelope/api/verify-code', (_req, res) => reply(res, answers.verify.shift()));
      app.post('/envelope/api/request-code', (_req, res) => reply(res, answers.request.shift()));
    },
  });
}, 60_000);

afterAll(async () => {
  await suite?.close();
});

beforeEach(() => {
  calls = [];
  answers = { recipient: { status: 200, json: view(true) }, verify: [], request: [] };
});

const open = () => suite.open(`/e/${TOKEN}`, { width: 375, height: 800 });

const paths = () => calls.map((c) => `${c.method} ${c.path}`);

const expectCleanRun = (run: { foreign: string[]; errors: string[] }) => {
  expect(run.foreign).toEqual([]);
  expect(run.errors).toEqual([]);
  for (const call of calls) expect(call.token).toBe(TOKEN);
};

describe('the code step', () => {
  it('asks for the code before the document; a wrong code is shown, the right one opens it', async () => {
    answers.verify = [
      {
        status: 400,
        json: {
          error: 'That code is not right. 4 tries left before it stops working.',
          outcome: 'wrong',
          attemptsLeft: 4,
        },
      },
      { status: 200, json: { verifiedAt: '2030-01-01T00:00:00.000Z' } },
    ];
    const run = await open();
    const { page } = run;
    const input = page.locator('#code-input');
    await input.waitFor();
    expect(await input.getAttribute('autocomplete')).toBe('one-time-code');
    expect(await input.getAttribute('inputmode')).toBe('numeric');
    expect(await page.locator('label[for="code-input"]').textContent()).toBe('Code from the email');
    expect(await page.locator('#code-hint').textContent()).toContain('ada@example.com');
    // The input has focus: the code can be typed at once.
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('code-input');
    expect(paths()).toEqual(['GET /recipient']);

    // Not six digits: refused on the page, no request.
    await input.fill('12a');
    await page.locator('#code-submit').click();
    expect(await page.locator('#code-error').textContent()).toBe('Enter the 6-digit code from the email.');
    expect(paths()).toEqual(['GET /recipient']);

    await input.fill('111 111');
    await page.locator('#code-submit').click();
    await expect
      .poll(() => page.locator('#code-error').textContent())
      .toBe('That code is not right. 4 tries left before it stops working.');
    expect(calls.at(-1)?.body).toEqual({ code: '111111' });
    expect(paths()).not.toContain('GET /document');

    await input.fill('123456');
    await page.keyboard.press('Enter');
    await page.locator('.pdf-page').first().waitFor();
    await expect.poll(() => paths().filter((p) => p === 'POST /view').length).toBe(1);
    expect(await page.locator('#code-step').count()).toBe(0);
    expect(await page.locator('#approve-button').isVisible()).toBe(true);
    expect(paths()).toEqual([
      'GET /recipient',
      'POST /verify-code',
      'POST /verify-code',
      'GET /document',
      'POST /view',
    ]);
    expectCleanRun(run);
    await page.close();
  });

  it('says when the code expired or is locked, and sends a new code (rate limit shown)', async () => {
    answers.verify = [
      {
        status: 423,
        json: {
          error: 'Too many wrong tries: this code no longer works. Ask for a new code.',
          outcome: 'locked',
        },
      },
    ];
    answers.request = [
      { status: 202, json: { requestsLeft: 4 } },
      {
        status: 429,
        json: { error: 'You asked for too many codes. Use the last one we sent, or try again in an hour.' },
      },
    ];
    const run = await open();
    const { page } = run;
    await page.locator('#code-input').fill('654321');
    await page.locator('#code-submit').click();
    await expect
      .poll(() => page.locator('#code-error').textContent())
      .toBe('Too many wrong tries: this code no longer works. Ask for a new code.');
    // Only a new code helps: the focus goes to "Send a new code".
    expect(await page.evaluate<string | undefined>('document.activeElement?.id')).toBe('code-resend');

    await page.locator('#code-resend').click();
    await expect
      .poll(() => page.locator('#code-status').textContent())
      .toContain('A new code is on its way to ada@example.com');
    expect(await page.locator('#code-error').isHidden()).toBe(true);
    await page.locator('#code-resend').click();
    await expect
      .poll(() => page.locator('#code-error').textContent())
      .toBe('You asked for too many codes. Use the last one we sent, or try again in an hour.');
    expect(paths()).toEqual([
      'GET /recipient',
      'POST /verify-code',
      'POST /request-code',
      'POST /request-code',
    ]);
    expect(paths()).not.toContain('GET /document');
    // No horizontal scrolling on a phone.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(375);
    expectCleanRun(run);
    await page.close();
  });

  it('ends the page when the link ended meanwhile, and shows no step when no code is needed', async () => {
    answers.verify = [
      {
        status: 410,
        json: { error: 'The sender canceled this envelope. The link no longer works.', status: 'canceled' },
      },
    ];
    const run = await open();
    const { page } = run;
    await page.locator('#code-input').fill('123456');
    await page.locator('#code-submit').click();
    await expect.poll(() => page.locator('#done-heading').textContent()).toBe('Envelope canceled');
    expect(await page.locator('#code-step').count()).toBe(0);
    expect(paths()).not.toContain('GET /document');
    await page.close();

    calls = [];
    answers.recipient = { status: 200, json: view(false) };
    const plain = await open();
    await plain.page.locator('.pdf-page').first().waitFor();
    expect(await plain.page.locator('#code-step').count()).toBe(0);
    // The view is reported once every page is drawn, after the first one shows.
    await expect.poll(() => paths()).toEqual(['GET /recipient', 'GET /document', 'POST /view']);
    expectCleanRun(run);
    expectCleanRun(plain);
    await plain.page.close();
  });
});
