import { defineConfig } from 'vitest/config';

// One test command for the whole repo: unit and integration tests of every package, then the
// end-to-end suite that drives the whole stack through HTTP.
export default defineConfig({
  test: {
    projects: ['libs/*', 'services/*', 'test/*/vitest.config.ts'],
    // NATS and Postgres from NATS_URL / DATABASE_URL, or started for the run when they are unset.
    globalSetup: ['./test/setup/infra.ts'],
  },
});
