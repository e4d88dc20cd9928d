import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'blob', testTimeout: 30_000 } });
