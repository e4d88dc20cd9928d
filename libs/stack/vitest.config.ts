import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'stack', testTimeout: 30_000 } });
