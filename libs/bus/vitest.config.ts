import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'bus',
    testTimeout: 30_000,
    // Deliveries and acks come within a few seconds, checked often.
    expect: { poll: { timeout: 5000, interval: 10 } },
  },
});
