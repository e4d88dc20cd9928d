import { defineConfig } from 'vitest/config';

// Metrics end to end: a real Prometheus (Debian's package) scrapes a stack of this folder's own, so
// that counts are exact (the e2e suite's shared stack serves every other test too).
export default defineConfig({
  test: {
    name: 'metrics',
    root: import.meta.dirname,
    include: ['**/*.test.ts'],
    globalSetup: ['../setup/infra.ts'],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    // Each file starts a whole stack: one at a time on a small machine.
    fileParallelism: false,
  },
});
