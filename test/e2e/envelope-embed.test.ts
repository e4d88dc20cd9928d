import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '@esign/testing';
import {
  auth,
  baseUrl,
  createAccount,
  dashboardHeaders,
  errorOf,
  jsonInit,
  signUpAndIn,
  type TestAccount,
} from './harness';
import { allMail, waitForMail } from './send-harness';

/**
 * Embedded signing through the whole stack, in Chromium: a site on another origin (127.0.0.2, its own
 * port) registered as the account's embed origin frames an embedded signer's signing URL with
 * `<esign-signing>` (the built module of libs/embed), receives `esign:loaded`, `esign:viewed` and
 * `esign:signed` in that order while the test signs inside the frame, and nothing after. The same URL
 * framed by an origin that is not registered is blocked by frame-ancestors; once used, it loads no
 * page again; and the embedded signer gets no email. A link that fails at the page's first call (used,
 * ended before the page loaded, ended while it loaded) gets its parent exactly one `esign:error`.
 */

const EMBED_DIR = join(dirname(fileURLToPath(import.meta.url)), '../../libs/embed');
const MODULE_FILE = join(EMBED_DIR, 'dist/esign-signing.js');
const SOURCE_FILE = join(EMBED_DIR, 'src/esign-signing.ts');

/** The component as published: built here when missing or older than its source. */
const builtModule = (): string => {
  if (!existsSync(MODULE_FILE) || statSync(MODULE_FILE).mtimeMs < statSync(SOURCE_FILE).mtimeMs) {
    execFileSync('pnpm', ['--filter', '@esign/embed', 'build'], { stdio: 'ignore' });
  }
  return readFileSync(MODULE_FILE, 'utf8');
};

/** The sender's site: a page that frames `?u=<signing URL>` with the component and records its events. */
const HOST_PAGE = `<!doctype html>
<html><head><meta charset="utf-8"><title>Sender's site</title>
<script type="module">
import '/esign-signing.js';
window.esignEvents = [];
const el = document.createElement('esign-signing');
for (const type of ['loaded', 'viewed', 'signed', 'approved', 'declined', 'error']) {
  el.addEventListener('esign:' + type, (event) => window.esignEvents.push({ type, detail: event.detail }));
}
el.style.height = '900px';
el.setAttribute('url', new URLSearchParams(location.search).get('u'));
document.body.append(el);
</script></head><body><h1>Our shop</h1></body></html>`;

const startSite = async (moduleSource: string): Promise<{ server: Server; origin: string }> => {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/esign-signing.js')) {
      res.writeHead(200, { 'Content-Type': 'text/javascript' }).end(moduleSource);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(HOST_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.2', resolve));
  return { server, origin: `http://127.0.0.2:${(server.address() as AddressInfo).port}` };
};

let browser: Browser;
let registered: { server: Server; origin: string };
let stranger: { server: Server; origin: string };
let account: TestAccount;
let pdf: Buffer;

beforeAll(async () => {
  const source = builtModule();
  registered = await startSite(source);
  stranger = await startSite(source);
  account = await createAccount();
  pdf = await makePdf({ pages: 1, text: 'Embedded agreement' });
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
});

afterAll(async () => {
  await browser?.close();
  registered?.server.close();
  stranger?.server.close();
});

interface EnvelopeBody {
  envelopeId: string;
  recipients: { recipientId: string; name: string; email: string; status: string; embedded: boolean }[];
}

const createEnvelope = async (apiKey: string, eveEmail: string, abeEmail: string): Promise<EnvelopeBody> => {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'embedded.pdf');
  form.append('subject', 'Embedded agreement');
  form.append(
    'recipients',
    JSON.stringify([
      {
        name: 'Eve Embedded',
        email: eveEmail,
        role: 'signer',
        order: 1,
        embedded: true,
        fields: [{ type: 'signature', page: 0, x: 10, y: 70, width: 30 }],
      },
      { name: 'Abe Approver', email: abeEmail, role: 'approver', order: 2 },
    ]),
  );
  const res = await fetch(`${baseUrl}/api/v1/envelopes`, {
    method: 'POST',
    headers: auth(apiKey),
    body: form,
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return (await res.json()) as EnvelopeBody;
};

const signingUrl = (apiKey: string, envelopeId: string, recipientId: string) =>
  fetch(`${baseUrl}/api/v1/envelopes/${envelopeId}/recipients/${recipientId}/signing-url`, {
    method: 'POST',
    headers: auth(apiKey),
  });

const eventsOf = (page: Page) =>
  page.evaluate(() =>
    (globalThis as unknown as { esignEvents: { type: string }[] }).esignEvents.map((e) => e.type),
  );

describe('embedded signing', () => {
  it('frames the signing page on the registered origin only, reports loaded, viewed, signed in order, opens once, and emails the signer nothing', async () => {
    const stamp = Date.now();
    const eve = `eve${stamp}@example.com`;
    const abe = `abe${stamp}@example.com`;
    const envelope = await createEnvelope(account.apiKey, eve, abe);
    const eveId = envelope.recipients.find((r) => r.email === eve)?.recipientId ?? '';
    const abeId = envelope.recipients.find((r) => r.email === abe)?.recipientId ?? '';
    expect(envelope.recipients.find((r) => r.recipientId === eveId)).toMatchObject({
      embedded: true,
      status: 'notified',
    });

    // No origin registered yet: no signing URL.
    const early = await signingUrl(account.apiKey, envelope.envelopeId, eveId);
    expect(early.status).toBe(409);
    expect(await errorOf(early)).toContain('embed-origins');

    const put = await fetch(
      `${baseUrl}/api/v1/account/embed-origins`,
      jsonInit('PUT', { origins: [registered.origin] }, auth(account.apiKey)),
    );
    expect(put.status).toBe(200);
    expect(await put.json()).toEqual({ origins: [registered.origin] });

    // Abe is emailed and his group's turn has not come; another account sees nothing.
    expect((await signingUrl(account.apiKey, envelope.envelopeId, abeId)).status).toBe(409);
    const other = await createAccount();
    expect((await signingUrl(other.apiKey, envelope.envelopeId, eveId)).status).toBe(404);
    expect((await signingUrl(account.apiKey, envelope.envelopeId, `rcp_${'x'.repeat(24)}`)).status).toBe(404);

    const made = await signingUrl(account.apiKey, envelope.envelopeId, eveId);
    expect(made.status).toBe(201);
    const { url, expiresAt } = (await made.json()) as { url: string; expiresAt: string };
    expect(url).toMatch(new RegExp(`^${baseUrl}/e/[A-Za-z0-9_-]{43}$`));
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(4 * 60_000);
    expect(Date.parse(expiresAt) - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    const page = await fetch(url);
    expect(page.headers.get('content-security-policy')).toContain(`frame-ancestors ${registered.origin}`);

    // Framed by a site that is not registered: the browser refuses to show the page.
    const context = await browser.newContext();
    const strangerPage = await context.newPage();
    const refusals: string[] = [];
    strangerPage.on('console', (message) => {
      if (message.text().includes('frame-ancestors')) refusals.push(message.text());
    });
    await strangerPage.goto(`${stranger.origin}/?u=${encodeURIComponent(url)}`);
    await expect.poll(() => refusals.length, { timeout: 10_000 }).toBeGreaterThan(0);
    await strangerPage.waitForTimeout(1000);
    expect(await eventsOf(strangerPage)).toEqual([]);
    const shown = strangerPage.frames().filter((frame) => frame.url().startsWith(`${baseUrl}/e/`));
    for (const frame of shown) expect(await frame.locator('#title').count()).toBe(0);
    await strangerPage.close();

    // Framed by the registered site: the page loads, is viewed, and is signed inside the frame.
    const host = await context.newPage();
    await host.goto(`${registered.origin}/?u=${encodeURIComponent(url)}`);
    await expect.poll(() => eventsOf(host), { timeout: 30_000 }).toEqual(['loaded', 'viewed']);
    // The URL opened once: loading it again (another tab, a reload) is refused.
    const again = await fetch(url);
    expect(again.status).toBe(410);
    expect(again.headers.get('content-security-policy')).toContain(`frame-ancestors ${registered.origin}`);
    expect(await again.text()).toContain('already opened');
    const frame = host.frameLocator('esign-signing iframe');
    expect(await frame.locator('#title').textContent()).toBe('Embedded agreement');
    await frame.locator('#signature-pad input[value="type"]').check();
    await frame.locator('#signature-typed').fill('Eve Embedded');
    await frame.locator('#finish-button').click();
    await expect.poll(() => eventsOf(host), { timeout: 30_000 }).toEqual(['loaded', 'viewed', 'signed']);
    await frame.locator('#done-heading').filter({ hasText: 'Signed' }).waitFor();
    await host.waitForTimeout(1000);
    expect(await eventsOf(host)).toEqual(['loaded', 'viewed', 'signed']);
    await context.close();

    expect((await fetch(url)).status).toBe(410);

    const after = (await (
      await fetch(`${baseUrl}/api/v1/envelopes/${envelope.envelopeId}`, { headers: auth(account.apiKey) })
    ).json()) as EnvelopeBody;
    expect(after.recipients.find((r) => r.recipientId === eveId)?.status).toBe('signed');
    // The next group is emailed as usual; the embedded signer never was.
    await waitForMail(abe, /Embedded agreement/);
    expect((await allMail()).filter((mail) => mail.to.includes(eve))).toEqual([]);
  });

  it('tells the framing site exactly once when the link fails at its first call: used, ended, or ended while the page loaded', async () => {
    const put = await fetch(
      `${baseUrl}/api/v1/account/embed-origins`,
      jsonInit('PUT', { origins: [registered.origin] }, auth(account.apiKey)),
    );
    expect(put.status).toBe(200);
    const embeddedUrl = async (): Promise<{ url: string; envelopeId: string }> => {
      const stamp = `${Date.now()}${Math.random().toString(36).slice(2, 6)}`;
      const envelope = await createEnvelope(
        account.apiKey,
        `eve${stamp}@example.com`,
        `abe${stamp}@example.com`,
      );
      const eveId = envelope.recipients.find((r) => r.embedded)?.recipientId ?? '';
      const made = await signingUrl(account.apiKey, envelope.envelopeId, eveId);
      expect(made.status).toBe(201);
      return { url: ((await made.json()) as { url: string }).url, envelopeId: envelope.envelopeId };
    };
    const cancel = async (envelopeId: string) => {
      const res = await fetch(`${baseUrl}/api/v1/envelopes/${envelopeId}/cancel`, {
        method: 'POST',
        headers: auth(account.apiKey),
      });
      expect(res.status, await res.clone().text()).toBe(200);
    };
    const context = await browser.newContext();
    const frame = async (url: string) => {
      const host = await context.newPage();
      await host.goto(`${registered.origin}/?u=${encodeURIComponent(url)}`);
      return host;
    };
    const errorsOf = (page: Page) =>
      page.evaluate(
        () =>
          (globalThis as unknown as { esignEvents: { type: string; detail: Record<string, unknown> }[] })
            .esignEvents,
      );

    // Used: one page opened the URL; a second page of it is refused, and says so to its parent.
    const used = await embeddedUrl();
    const first = await frame(used.url);
    await expect.poll(() => eventsOf(first), { timeout: 30_000 }).toEqual(['loaded', 'viewed']);
    const second = await frame(used.url);
    await expect.poll(() => eventsOf(second), { timeout: 30_000 }).toEqual(['error']);

    // Ended before the page was loaded: the envelope was canceled.
    const canceled = await embeddedUrl();
    await cancel(canceled.envelopeId);
    const late = await frame(canceled.url);
    await expect.poll(() => eventsOf(late), { timeout: 30_000 }).toEqual(['error']);

    // Ended while the page loaded: its first call (the recipient view) answers 410.
    const racing = await embeddedUrl();
    let reached: () => void = () => undefined;
    const reachedCall = new Promise<void>((resolve) => {
      reached = resolve;
    });
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await context.route('**/envelope/api/recipient', async (route) => {
      reached();
      await held;
      await route.continue();
    });
    const loading = await frame(racing.url);
    await reachedCall;
    await cancel(racing.envelopeId);
    release();
    await expect.poll(() => eventsOf(loading), { timeout: 30_000 }).toEqual(['error']);

    // Exactly one each, with the reason, and the first page (which opened the link) told nothing more.
    await loading.waitForTimeout(1000);
    expect(await eventsOf(first)).toEqual(['loaded', 'viewed']);
    expect((await errorsOf(second)).map((e) => [e.type, e.detail.status])).toEqual([['error', 'used']]);
    expect((await errorsOf(late)).map((e) => [e.type, e.detail.status])).toEqual([['error', 'canceled']]);
    expect((await errorsOf(loading)).map((e) => [e.type, e.detail.status])).toEqual([['error', 'canceled']]);
    expect((await errorsOf(second))[0]?.detail.message).toContain('already opened');
    await context.close();
  });

  it('lets the dashboard set and read the origins with its session, and no other site change them', async () => {
    const user = await signUpAndIn();
    const path = `${baseUrl}/api/account/embed-origins`;

    const put = await fetch(
      path,
      jsonInit('PUT', { origins: ['https://Shop.Example.com'] }, dashboardHeaders(user)),
    );
    const crossSite = await fetch(
      path,
      jsonInit(
        'PUT',
        { origins: ['https://evil.example.com'] },
        { ...dashboardHeaders(user), Origin: 'https://evil.example.com' },
      ),
    );
    const read = await fetch(path, { headers: { Cookie: user.cookie } });

    expect(put.status).toBe(200);
    expect(crossSite.status).toBe(403);
    expect(read.status).toBe(200);
    expect(read.headers.get('cache-control')).toBe('no-store');
    expect(await read.json()).toEqual({ origins: ['https://shop.example.com'] });
  });
});
