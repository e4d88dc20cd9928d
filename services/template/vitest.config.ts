import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'template', testTimeout: 30000, hookTimeout: 60000 } });
