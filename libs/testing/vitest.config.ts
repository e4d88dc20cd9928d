import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'testing', testTimeout: 30000 } });
