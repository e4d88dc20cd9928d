import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'mailer', testTimeout: 30000, hookTimeout: 60000 } });
