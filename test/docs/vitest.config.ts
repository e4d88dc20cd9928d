import { defineConfig } from 'vitest/config';

// Documentation generated from code (docs/configuration.md, the metrics tables of docs/operations.md):
// fails when what is committed is stale.
export default defineConfig({
  test: {
    name: 'docs',
    root: import.meta.dirname,
    include: ['**/*.test.ts'],
  },
});
