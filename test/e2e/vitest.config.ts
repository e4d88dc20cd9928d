import { defineConfig } from 'vitest/config';

// End-to-end: one stack for the whole suite (started in global-setup.ts), driven through HTTP.
export default defineConfig({
  test: {
    name: 'e2e',
    root: import.meta.dirname,
    include: ['**/*.test.ts'],
    // Project setups run before the root one (vitest.config.ts): NATS and Postgres must exist first.
    globalSetup: ['../setup/infra.ts', './global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Files share one stack; run them one after another so timings and rate limits stay predictable.
    fileParallelism: false,
  },
});
