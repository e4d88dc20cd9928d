import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'dev-servers', testTimeout: 30000 } });
