import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The gateway's web pages in Chromium, each served from its built bundle with a fixed API (page-level
// tests: the stack's own pages are driven end to end in test/e2e). Kept out of the gateway's package so
// that its image, which installs the gateway's dev dependencies to build the pages, carries no browser
// driver.
export default defineConfig({
  test: {
    name: 'pages',
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
  },
});
