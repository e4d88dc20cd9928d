import { readdirSync, existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/**
 * The gateway's web pages, built from source into services/gateway/dist/web/ (`pnpm build:web`).
 * Every folder under web/ with an index.html is one page (one app); web/shared/ holds code they
 * share. Everything is bundled: the pages load nothing from another origin. The gateway serves the
 * bundles under /web/ and each page's HTML at its own route (see src/http/web-pages.ts).
 */
const root = dirname(fileURLToPath(import.meta.url));
const pages = Object.fromEntries(
  readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(join(root, entry.name, 'index.html')))
    .map((entry) => [entry.name, join(root, entry.name, 'index.html')]),
);

export default defineConfig({
  root,
  base: '/web/',
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: resolve(root, '../dist/web'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    rollupOptions: { input: pages },
  },
});
