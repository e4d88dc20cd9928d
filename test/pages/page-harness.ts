/**
 * What the page-level tests share: the BUILT pages (`pnpm build:web`, built here when missing or older
 * than their sources), a headless Chromium, and a page opened with a watch on requests to any other
 * origin and on script errors.
 */
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express, type Response } from 'express';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import {
  loadWebPage,
  mountWebAssets,
  sendWebPage,
  WEB_DIST_DIR,
} from '../../services/gateway/src/http/web-pages';

const WEB_SOURCE_DIR = fileURLToPath(new URL('../../services/gateway/web/', import.meta.url));

const newestIn = (dir: string): number =>
  Math.max(
    0,
    ...readdirSync(dir, { withFileTypes: true }).map((entry) =>
      entry.isDirectory() ? newestIn(join(dir, entry.name)) : statSync(join(dir, entry.name)).mtimeMs,
    ),
  );

/**
 * The test runs the BUILT page `name` (a folder of web/): built by `pnpm build:web` (as the e2e setup
 * does), or here when it is missing or older than its sources or web/shared.
 */
export const ensureBuilt = (name: string): void => {
  const built = join(WEB_DIST_DIR, name, 'index.html');
  const sources = [name, 'shared'].map((folder) => newestIn(join(WEB_SOURCE_DIR, folder)));
  if (existsSync(built) && statSync(built).mtimeMs >= Math.max(...sources)) return;
  const result = spawnSync('pnpm', ['--silent', 'build:web'], { cwd: WEB_SOURCE_DIR, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`pnpm build:web failed:\n${result.stdout}\n${result.stderr}`);
};

/** One call the page made to its fake API. */
export interface ApiCall {
  method: string;
  /** The path below the API's prefix (`/sign`, `/view`, …). */
  path: string;
  token: string | undefined;
  body: unknown;
}

/** A fixed answer of the fake API. */
export interface Answer {
  status: number;
  json: unknown;
}

/** Sends `answer`, or a 500 when the test gave none. */
export const reply = (res: Response, answer: Answer | undefined): void => {
  res.status(answer?.status ?? 500).json(answer?.json ?? { error: 'no answer' });
};

/** What a page test serves: see `startPageSuite`. */
export interface PageSuiteInput {
  /** The page: a folder of web/ with an index.html. */
  name: string;
  /** Where the gateway answers the page (`/s/:token`). */
  route: string;
  /** The prefix of the page's API (`/signing/api`). */
  api: string;
  pdf: Buffer;
  record: (call: ApiCall) => void;
  /** The test's own answers of the API. */
  answer: (app: Express) => void;
}

/**
 * A local server for the BUILT page `name`: the gateway's static mount and page headers (CSP), the page
 * at `route`, every call under `api` passed to `record` (with its `X-Signing-Token`), `pdf` at
 * `<api>/document`, a recorded view at `<api>/view`, then `answer`'s routes. Resolves once it listens.
 */
const servePage = async (input: PageSuiteInput): Promise<{ server: Server; baseUrl: string }> => {
  ensureBuilt(input.name);
  const html = loadWebPage(input.name);
  const app = express();
  app.use(express.json({ limit: '2mb' }));
  mountWebAssets(app);
  app.get(input.route, (_req, res) => sendWebPage(res, html));
  app.use(input.api, (req, _res, next) => {
    input.record({
      method: req.method,
      path: req.path,
      token: req.get('X-Signing-Token'),
      body: req.body as unknown,
    });
    next();
  });
  app.get(`${input.api}/document`, (_req, res) => res.type('application/pdf').send(input.pdf));
  app.post(`${input.api}/view`, (_req, res) => res.json({ viewedAt: '2030-01-01T00:00:00.000Z' }));
  input.answer(app);
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
};

/** The machine's Chromium, headless. */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });

/** A page and what it did that it should not: requests to another origin, script errors. */
export interface WatchedPage {
  page: Page;
  foreign: string[];
  errors: string[];
}

/** Opens `url` (on `baseUrl`) in a new page that records foreign requests and script errors. */
const openWatched = async (input: {
  browser: Browser;
  baseUrl: string;
  url: string;
  viewport?: { width: number; height: number };
}): Promise<WatchedPage> => {
  const viewport = input.viewport ?? { width: 1100, height: 900 };
  const page = await input.browser.newPage({ viewport, hasTouch: viewport.width < 500 });
  const foreign: string[] = [];
  const errors: string[] = [];
  page.on('request', (request) => {
    const u = request.url();
    if (!u.startsWith(input.baseUrl) && !u.startsWith('data:') && !u.startsWith('blob:')) foreign.push(u);
  });
  page.on('pageerror', (err) => errors.push(err.message));
  const response = await page.goto(input.url);
  expect(response?.headers()['content-security-policy']).toContain("default-src 'self'");
  return { page, foreign, errors };
};

/** A page served and a browser to open it in, for one test file. */
export interface PageSuite {
  readonly baseUrl: string;
  /** Opens `path` of the server in a new page, watched (foreign requests, script errors) and its CSP checked. */
  readonly open: (path: string, viewport?: { width: number; height: number }) => Promise<WatchedPage>;
  /** For afterAll: the browser and the server. */
  readonly close: () => Promise<void>;
}

/**
 * The page `name` BUILT (built here when stale) and served by a local server with the gateway's static
 * mount and page headers (CSP): the page at `route`, every call under `api` passed to `record` (with
 * its `X-Signing-Token`), `pdf` at `<api>/document`, a view recorded at `<api>/view`, then `answer`'s
 * routes; and a headless Chromium.
 */
export const startPageSuite = async (input: PageSuiteInput): Promise<PageSuite> => {
  const { server, baseUrl } = await servePage(input);
  const browser = await launchChromium();
  return {
    baseUrl,
    open: (path, viewport) => openWatched({ browser, baseUrl, url: `${baseUrl}${path}`, viewport }),
    close: async () => {
      await browser.close();
      server.close();
    },
  };
};

/** Draws a stroke across the signature pad's canvas at `canvasSelector` with the mouse. */
export const drawOn = async (page: Page, canvasSelector: string): Promise<void> => {
  const canvas = page.locator(canvasSelector);
  await canvas.scrollIntoViewIfNeeded();
  const b = await canvas.boundingBox();
  if (!b) throw new Error('no canvas');
  await page.mouse.move(b.x + b.width * 0.1, b.y + b.height * 0.6);
  await page.mouse.down();
  for (let i = 1; i <= 15; i++)
    await page.mouse.move(b.x + b.width * (0.1 + 0.05 * i), b.y + b.height * (0.6 - 0.3 * Math.sin(i / 2)), {
      steps: 2,
    });
  await page.mouse.up();
};
