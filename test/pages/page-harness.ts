/**
 * What the page-level tests share: the BUILT pages (`pnpm build:web`, built here when missing or older
 * than their sources), a headless Chromium, and a page opened with a watch on requests to any other
 * origin and on script errors.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { WEB_DIST_DIR } from '../../services/gateway/src/http/web-pages';

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
export const openWatched = async (input: {
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
