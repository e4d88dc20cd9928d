import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Express, type Response } from 'express';

/** Where `pnpm build:web` writes the bundled pages (see web/vite.config.ts). */
export const WEB_DIST_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../dist/web');

/**
 * Content Security Policy of every page: this origin only. pdf.js runs a worker from /web/ and
 * draws into canvases; inline styles are allowed for the positioning of overlays, inline scripts are not.
 */
const POLICY_WITHOUT_FRAMING = [
  "default-src 'self'",
  "img-src 'self' data: blob:",
  "style-src 'self' 'unsafe-inline'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
];
export const WEB_CONTENT_SECURITY_POLICY = [...POLICY_WITHOUT_FRAMING, "frame-ancestors 'none'"].join('; ');

/**
 * The same policy for a page that the given origins may frame (an embedded signing page: the account's
 * embed origins, exact origins as the key service stores them); no origin: no framing at all.
 */
export const framedContentSecurityPolicy = (origins: readonly string[]): string =>
  origins.length === 0
    ? WEB_CONTENT_SECURITY_POLICY
    : [...POLICY_WITHOUT_FRAMING, `frame-ancestors ${origins.join(' ')}`].join('; ');

/** Serves the bundles under /web/ (file names carry a content hash: cached for a year). */
export const mountWebAssets = (app: Express): void => {
  app.use(
    '/web',
    express.static(WEB_DIST_DIR, {
      index: false,
      fallthrough: true,
      setHeaders: (res, path) => {
        if (path.includes(`${join('web', 'assets')}`))
          res.setHeader('Cache-Control', 'public, max-age=31536000, immutable');
      },
    }),
  );
};

/**
 * The HTML of one built page, read once at start-up. `undefined` when the pages were not built
 * (`pnpm build:web`): the page's route then answers 503 and says so, the API keeps working.
 */
export const loadWebPage = (name: string): string | undefined => {
  const file = join(WEB_DIST_DIR, name, 'index.html');
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
};

/** Sends a built page with the page headers (CSP, no framing, no caching of the HTML itself). */
export const sendWebPage = (res: Response, html: string | undefined, status = 200): void => {
  if (html === undefined) {
    res.status(503).type('text/plain').send('This page is not built: run `pnpm build:web`.\n');
    return;
  }
  res
    .status(status)
    .set({
      'Content-Security-Policy': WEB_CONTENT_SECURITY_POLICY,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Referrer-Policy': 'no-referrer',
    })
    .type('html')
    .send(html);
};
