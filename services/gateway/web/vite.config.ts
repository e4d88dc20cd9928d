import { cpSync, existsSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
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

/** pdf.js's data files (standard fonts, CJK character maps, JPEG 2000/JBIG2 decoders, ICC profiles). */
const pdfjsDir = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const PDFJS_DATA = ['standard_fonts', 'cmaps', 'wasm', 'iccs'];

export default defineConfig({
  plugins: [
    {
      // Copied beside the bundles as they are, so the pages fetch them from this origin (/web/pdfjs/).
      name: 'esign-pdfjs-data',
      apply: 'build',
      writeBundle(options) {
        const outDir = options.dir ?? resolve(root, '../dist/web');
        for (const name of PDFJS_DATA)
          cpSync(join(pdfjsDir, name), join(outDir, 'pdfjs', name), { recursive: true });
      },
    },
  ],
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
