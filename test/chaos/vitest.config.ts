import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// The short fault scenarios (kill -9 of the signer, NATS restart) under a small load, each on its own
// nats-server, S3 server and test database. The whole `pnpm chaos` run stays a command for people.
export default defineConfig({
  test: {
    name: 'chaos',
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['**/*.test.ts'],
    testTimeout: 120_000,
    fileParallelism: false,
  },
});
