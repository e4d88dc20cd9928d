import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'db', testTimeout: 30_000 } });
