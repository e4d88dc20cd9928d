import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'key', testTimeout: 30000, hookTimeout: 60000 } });
