/**
 * The envelope page framed by another origin, page-level: the BUILT page (`pnpm build:web`; built
 * here when missing or stale) served with a Content-Security-Policy whose frame-ancestors lets the
 * host site frame it, /envelope/api/* answered with fixed JSON and a real PDF, and a host page on
 * 127.0.0.2 that frames it in a plain iframe and records every message it receives. It checks, in a
 * real Chromium, whom the page posts to: the framing origin when the recipient view lists it, nobody
 * otherwise, and a refused view as an `error`. The flow through the stack is test/e2e/envelope-embed.test.ts.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf } from '@esign/testing';
import {
  framedContentSecurityPolicy,
  loadWebPage,
  mountWebAssets,
} from '../../services/gateway/src/http/web-pages';
import { ensureBuilt, launchChromium } from './page-harness';

const TOKEN = 'Zb3dEf6hIj9lMn2pQr5tUv8xYz1bCd4fGh7jKl0nP_-';

/** What the fake API answers in the current test. */
let embedOrigins: string[] | undefined;
let viewAnswer: { status: number; json: unknown };
let views = 0;

const recipientView = () => ({
  envelopeId: 'env_0123456789abcdefghijklmn',
  envelopeStatus: 'pending',
  fileName: 'lease.pdf',
  subject: 'Embedded lease',
  message: null,
  senderEmail: 'owner@example.com',
  pageCount: 1,
  expiresAt: '2030-01-31T12:00:00.000Z',
  recipient: {
    name: 'Eve Embedded',
    email: 'eve@example.com',
    role: 'signer',
    order: 1,
    status: 'notified',
    fields: [{ type: 'signature', page: 0, x: 10, y: 70, width: 30, required: true }],
  },
  others: [],
  ...(embedOrigins ? { embedOrigins } : {}),
});

let signingServer: Server;
let signingOrigin: string;
let hostServer: Server;
let hostOrigin: string;
let browser: Browser;

beforeAll(async () => {
  ensureBuilt('envelope');
  const pdf = await makePdf({ pages: 1, text: 'Lease' });
  const html = loadWebPage('envelope');
  hostServer = createServer((_req, res) => {
    const src = `${signingOrigin}/e/${TOKEN}`;
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html><head><meta charset="utf-8"><title>Host</title></head><body>
<iframe id="frame" src="${src}" style="width:100%;height:900px" sandbox="allow-scripts allow-forms allow-same-origin"></iframe>
<script>
window.received = [];
window.addEventListener('message', (event) => window.received.push({ origin: event.origin, data: event.data }));
</script></body></html>`);
  });
  hostServer.listen(0, '127.0.0.2');
  await once(hostServer, 'listening');
  hostOrigin = `http://127.0.0.2:${(hostServer.address() as AddressInfo).port}`;

  const app = express();
  mountWebAssets(app);
  // The host may frame the page, as the gateway lets an account's embed origins frame an embedded link's.
  app.get('/e/:token', (_req, res) =>
    res
      .status(200)
      .set({
        'Content-Security-Policy': framedContentSecurityPolicy([hostOrigin]),
        'Cache-Control': 'no-store',
      })
      .type('html')
      .send(html),
  );
  app.get('/envelope/api/recipient', (_req, res) => res.json(recipientView()));
  app.get('/envelope/api/document', (_req, res) => res.type('application/pdf').send(pdf));
  app.post('/envelope/api/view', (_req, res) => {
    views += 1;
    res.status(viewAnswer.status).json(viewAnswer.json);
  });
  signingServer = app.listen(0, '127.0.0.1');
  await once(signingServer, 'listening');
  signingOrigin = `http://127.0.0.1:${(signingServer.address() as AddressInfo).port}`;
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  signingServer?.close();
  hostServer?.close();
});

interface Received {
  origin: string;
  data: { source: string; type: string; detail: Record<string, unknown> };
}

const receivedBy = (page: Page) =>
  page.evaluate(() => (globalThis as unknown as { received: Received[] }).received);

/** Opens the host page and waits until the framed page has reported its view (or tried to). */
const openHost = async (): Promise<Page> => {
  const before = views;
  const page = await browser.newPage();
  await page.goto(`${hostOrigin}/`);
  await expect.poll(() => views, { timeout: 30_000 }).toBeGreaterThan(before);
  await page.waitForTimeout(500);
  return page;
};

describe('the envelope page in a frame', () => {
  it('posts loaded and viewed to the framing origin when the view lists it, from its own origin', async () => {
    embedOrigins = ['https://elsewhere.example.com', hostOrigin];
    viewAnswer = { status: 200, json: { viewedAt: '2030-01-01T00:00:00.000Z' } };

    const page = await openHost();

    const received = await receivedBy(page);
    expect(received.map((m) => m.data.type)).toEqual(['loaded', 'viewed']);
    expect(received.every((m) => m.origin === signingOrigin && m.data.source === 'esign')).toBe(true);
    expect(received[0]?.data.detail).toEqual({ role: 'signer' });
    expect(received[1]?.data.detail).toEqual({ viewedAt: '2030-01-01T00:00:00.000Z' });
    await page.close();
  });

  it('posts nothing when the framing origin is not in the list, nor for a link that is not embedded', async () => {
    viewAnswer = { status: 200, json: { viewedAt: '2030-01-01T00:00:00.000Z' } };

    embedOrigins = ['https://elsewhere.example.com'];
    const unlisted = await openHost();
    embedOrigins = undefined;
    const emailed = await openHost();

    expect(await receivedBy(unlisted)).toEqual([]);
    expect(await receivedBy(emailed)).toEqual([]);
    // The page itself works as ever.
    expect(await emailed.frameLocator('#frame').locator('#title').textContent()).toBe('Embedded lease');
    await unlisted.close();
    await emailed.close();
  });

  it('reports a refused view (the URL was opened elsewhere first) as an error and stops', async () => {
    embedOrigins = [hostOrigin];
    viewAnswer = { status: 409, json: { error: 'this signing link was already opened: ask for a new one' } };

    const page = await openHost();

    const received = await receivedBy(page);
    expect(received.map((m) => m.data.type)).toEqual(['loaded', 'error']);
    expect(received[1]?.data.detail).toMatchObject({ status: 'used' });
    const frame = page.frameLocator('#frame');
    expect(await frame.locator('#done-heading').textContent()).toBe('Link already used');
    expect(await frame.locator('#act-panel').isHidden()).toBe(true);
    await page.close();
  });
});
