import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'document-store',
    testTimeout: 30000,
    hookTimeout: 60000,
    // Eventual results (the outbox relay publishing, a sweep's run) come within seconds, checked often.
    expect: { poll: { timeout: 5000, interval: 25 } },
  },
});
