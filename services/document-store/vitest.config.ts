import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'document-store', testTimeout: 30000, hookTimeout: 60000 } });
