import { mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '@esign/testing';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  auth,
  baseUrl,
  createAccount,
  dashboardHeaders,
  jsonInit,
  SESSION_COOKIE,
  signUpAndIn,
  type SignedInUser,
} from './harness';
import { waitForMail } from './send-harness';

// The dashboard's Webhooks view (/dashboard#/webhooks) in Debian's Chromium, against the e2e stack,
// whose webhook service delivers to receivers on 127.0.0.3 (see global-setup.ts).

const SHOTS = process.env.DASHBOARD_SCREENSHOTS ?? join(tmpdir(), 'esign-dashboard-screenshots');
const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };

let browser: Browser;
let receiver: WebhookReceiver;
let user: SignedInUser;

beforeAll(async () => {
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  receiver = await startWebhookReceiver();
  receiver.respond((_request, _n, res) => {
    res.statusCode = 200;
    res.setHeader('Content-Type', 'text/plain');
    res.end('received, thanks');
  });
  user = await signUpAndIn();
});
afterAll(async () => {
  await browser?.close();
  await receiver?.close();
});

const poll = <T>(read: () => Promise<T> | T) => expect.poll(read, { timeout: 20_000 });
const heading = (page: Page) => page.locator('main h1');
const focused = (page: Page): Locator => page.locator(':focus');
const tabTo = async (page: Page, target: Locator, max = 40): Promise<void> => {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if ((await target.and(focused(page)).count()) > 0) return;
  }
  throw new Error(`Tab never reached ${target.toString()}`);
};
const headersOf = (r: ReceivedWebhook) => ({
  'webhook-id': String(r.headers['webhook-id']),
  'webhook-timestamp': String(r.headers['webhook-timestamp']),
  'webhook-signature': String(r.headers['webhook-signature']),
});

const openSignedIn = async (viewport = DESKTOP) => {
  const context = await browser.newContext({ viewport });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: baseUrl });
  await context.addCookies([
    { name: SESSION_COOKIE, value: user.cookie.slice(SESSION_COOKIE.length + 1), url: baseUrl },
  ]);
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('console', (msg) => {
    // A refused request is logged by Chromium as a console error; responses are checked below.
    if (msg.type() === 'error' && !/Failed to load resource/.test(msg.text())) problems.push(msg.text());
  });
  page.on('response', (res) => {
    if (res.status() >= 400) problems.push(`${res.status()} ${res.url()}`);
  });
  page.on('request', (req) => {
    const url = req.url();
    if (!url.startsWith(baseUrl) && !url.startsWith('data:')) problems.push(`foreign request ${url}`);
  });
  return { context, page, problems };
};

describe('webhooks in the dashboard', () => {
  it('are session-only JSON operations with CSRF on changes', async () => {
    // The cookie without the CSRF token: refused, nothing created.
    const noToken = await fetch(
      `${baseUrl}/api/webhooks`,
      jsonInit(
        'POST',
        { url: receiver.url, eventTypes: ['document.signed'] },
        { Cookie: user.cookie, Origin: baseUrl },
      ),
    );
    expect(noToken.status).toBe(403);
    // An API key never works on /api/webhooks, and the cookie never on /api/v1/webhooks.
    const business = await createAccount('business');
    expect((await fetch(`${baseUrl}/api/webhooks`, { headers: auth(business.apiKey) })).status).toBe(401);
    expect((await fetch(`${baseUrl}/api/v1/webhooks`, { headers: { Cookie: user.cookie } })).status).toBe(
      401,
    );
    const list = await fetch(`${baseUrl}/api/webhooks`, { headers: { Cookie: user.cookie } });
    expect(list.status).toBe(200);
    expect(await list.json()).toEqual({ webhooks: [] });
    // The same webhook.* requests as /api/v1: an SSRF-refused URL is refused here too.
    const loopback = await fetch(
      `${baseUrl}/api/webhooks`,
      jsonInit(
        'POST',
        { url: 'http://127.0.0.1:9/', eventTypes: ['document.signed'] },
        dashboardHeaders(user),
      ),
    );
    expect(loopback.status).toBe(400);
  });

  it('creates an endpoint, copies its secret, sends a test event a receiver verifies, logs, replays, rotates, disables and deletes it', async () => {
    const { context, page, problems } = await openSignedIn();
    await page.goto(`${baseUrl}/dashboard#/webhooks`);
    await poll(() => heading(page).textContent()).toBe('Webhooks');
    await poll(() => page.locator('.empty').textContent()).toBe('No endpoints yet.');

    // Create: the URL and every event type (all are checked at first) but two.
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description').fill('e2e receiver');
    await page.getByRole('checkbox', { name: /signing\.viewed/ }).uncheck();
    await page.getByRole('checkbox', { name: /signing\.expired/ }).uncheck();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secretField = page.getByRole('textbox', { name: 'Signing secret', exact: true });
    await secretField.waitFor();
    const shown = await secretField.inputValue();
    expect(shown).toMatch(/^whsec_/);
    await page.getByRole('button', { name: 'Copy secret' }).click();
    await poll(() => page.locator('.copy-status').textContent()).toBe('Copied to the clipboard.');
    const secret = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(secret).toBe(shown);
    await page.screenshot({ path: join(SHOTS, 'webhooks-created-desktop.png'), fullPage: true });
    await page.getByRole('button', { name: 'Done: I have stored it' }).click();
    await poll(() => page.getByRole('textbox', { name: 'Signing secret', exact: true }).count()).toBe(0);
    const row = page.locator('tr[data-webhook-id]');
    await poll(() => row.count()).toBe(1);
    expect(await row.locator('td').nth(1).textContent()).toBe(
      'document.signed, signing.completed, signing.declined, envelope.sent, recipient.notified, ' +
        'recipient.viewed, recipient.signed, recipient.approved, recipient.declined, envelope.declined, ' +
        'envelope.completed, envelope.canceled, envelope.expired',
    );
    expect(await row.locator('td').nth(2).textContent()).toBe('Enabled');
    // The secret is never shown again: not in the list's answer.
    const listed = await (
      await fetch(`${baseUrl}/api/webhooks`, { headers: { Cookie: user.cookie } })
    ).text();
    expect(listed).not.toContain(secret);

    // The endpoint's view: a test event, verified by the receiver with the copied secret.
    await page.getByRole('link', { name: receiver.url }).click();
    await poll(() => heading(page).textContent()).toBe(`Webhook: ${receiver.url}`);
    await poll(() => page.locator('.empty').textContent()).toBe('Nothing delivered yet. Send a test event.');
    await page.getByRole('button', { name: 'Send test event' }).click();
    const [first] = await receiver.waitFor(1);
    const event = new Webhook(secret).verify(first?.body ?? '', headersOf(first as ReceivedWebhook)) as {
      id: string;
      type: string;
    };
    expect(event.type).toBe('webhook.test');

    // The delivery log shows it delivered, with the status, latency and the answer's excerpt.
    const delivery = page.locator(`tr[data-event-id="${event.id}"]`);
    await poll(
      async () => (await delivery.count()) > 0 && (await delivery.locator('td').nth(2).textContent()),
    ).toBe('Delivered');
    expect(await delivery.locator('td').nth(4).textContent()).toMatch(/^HTTP 200 in \d+ msDetails/);
    expect(await delivery.locator('td').nth(5).textContent()).toBe('received, thanks');
    await page.screenshot({ path: join(SHOTS, 'webhook-detail-desktop.png'), fullPage: true });

    // Replay: the same event again, the same webhook-id, verified again.
    await page.getByRole('button', { name: `Replay ${event.id}` }).click();
    const replayed = await receiver.waitFor(2);
    expect(replayed[1]?.headers['webhook-id']).toBe(event.id);
    new Webhook(secret).verify(replayed[1]?.body ?? '', headersOf(replayed[1] as ReceivedWebhook));
    await poll(() => page.locator(`tr[data-event-id="${event.id}"]`).count()).toBe(2);
    await poll(() => page.getByText('(replay)').count()).toBe(1);

    // Rotate with the default 24-hour overlap: the new secret shown once, and both secrets verify.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate secret' }).click();
    const newSecretField = page.getByRole('textbox', { name: 'New signing secret', exact: true });
    await newSecretField.waitFor();
    const newSecret = await newSecretField.inputValue();
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(secret);
    await poll(() => page.locator('.new-key .message').textContent()).toContain(
      'signed with both the previous and the new secret',
    );
    await page.getByRole('button', { name: 'Send test event' }).click();
    const afterRotation = await receiver.waitFor(3);
    const third = afterRotation[2] as ReceivedWebhook;
    new Webhook(newSecret).verify(third.body, headersOf(third));
    new Webhook(secret).verify(third.body, headersOf(third));

    // Disable: said with its reason; the test button is off; the API agrees.
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await poll(() => page.locator('.facts .badge').textContent()).toMatch(/^Disabled by you/);
    await poll(() => page.getByRole('button', { name: 'Send test event' }).isDisabled()).toBe(true);
    const [endpoint] = (
      (await (await fetch(`${baseUrl}/api/webhooks`, { headers: { Cookie: user.cookie } })).json()) as {
        webhooks: { enabled: boolean; disabledReason: string | null }[];
      }
    ).webhooks;
    expect(endpoint).toMatchObject({ enabled: false, disabledReason: 'manual' });

    // Phone width: nothing wider than the screen.
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: join(SHOTS, 'webhook-detail-phone.png'), fullPage: true });
    const { scroll, width, widest } = await page.evaluate<{ scroll: number; width: number; widest: string }>(
      `({ scroll: document.documentElement.scrollWidth, width: window.innerWidth,
          widest: [...document.querySelectorAll('main *')].filter((e) => e.getBoundingClientRect().right > window.innerWidth).map((e) => e.tagName + '.' + e.className).slice(-3).join(' ') })`,
    );
    expect(scroll, widest).toBeLessThanOrEqual(width);
    await page.setViewportSize(DESKTOP);

    // Delete with the keyboard alone: Tab to the button, Enter, the dialog's Cancel has the focus,
    // Tab to confirm, Enter.
    await page.locator('main h1').focus();
    await tabTo(page, page.getByRole('button', { name: 'Delete endpoint' }));
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    await poll(() => dialog.getByRole('button', { name: 'Cancel' }).and(focused(page)).count()).toBe(1);
    await page.keyboard.press('Tab');
    await poll(() => dialog.getByRole('button', { name: 'Delete endpoint' }).and(focused(page)).count()).toBe(
      1,
    );
    await page.keyboard.press('Enter');
    await poll(() => heading(page).textContent()).toBe('Webhooks');
    await poll(() => page.getByRole('status').first().textContent()).toBe(
      `The endpoint ${receiver.url} is deleted.`,
    );
    await poll(() => page.locator('.empty').textContent()).toBe('No endpoints yet.');
    await page.setViewportSize(PHONE);
    await page.screenshot({ path: join(SHOTS, 'webhooks-phone.png'), fullPage: true });

    expect(problems).toEqual([]);
    await context.close();
  });
  it('shows an endpoint the service disabled (410) with its reason, and the owner is emailed how to re-enable it', async () => {
    const gone = await startWebhookReceiver();
    gone.respond((_request, _n, res) => {
      res.statusCode = 410;
      res.end('gone');
    });
    try {
      const created = await fetch(
        `${baseUrl}/api/webhooks`,
        jsonInit('POST', { url: gone.url, eventTypes: ['document.signed'] }, dashboardHeaders(user)),
      );
      expect(created.status).toBe(201);
      const { webhook } = (await created.json()) as { webhook: { id: string } };
      const test = await fetch(`${baseUrl}/api/webhooks/${webhook.id}/test`, {
        method: 'POST',
        headers: dashboardHeaders(user),
      });
      expect(test.status).toBe(202);
      await gone.waitFor(1);

      // The whole chain: webhook service → events.webhook.endpoint-disabled → mailer → key service.
      const [mail] = await waitForMail(user.email, /Webhook endpoint disabled/);
      expect(mail?.subject).toBe(`Webhook endpoint disabled: ${gone.url}`);
      expect(mail?.text).toContain('Your receiver answered 410 Gone, which tells us to stop.');
      expect(mail?.text).toContain(`/dashboard#/webhooks/${webhook.id}`);

      const { context, page, problems } = await openSignedIn();
      await page.goto(`${baseUrl}/dashboard#/webhooks/${webhook.id}`);
      await poll(() => page.locator('.facts .badge').textContent()).toMatch(
        /^Disabled: the receiver answered 410 Gone/,
      );
      await poll(() => page.getByRole('button', { name: 'Enable', exact: true }).count()).toBe(1);
      expect(problems).toEqual([]);
      await context.close();
    } finally {
      await gone.close();
    }
  });
});
