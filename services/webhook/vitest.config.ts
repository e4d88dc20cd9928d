import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'webhook', testTimeout: 60000, hookTimeout: 120000 } });
