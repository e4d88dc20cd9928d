import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'bus', testTimeout: 30_000 } });
