import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'telemetry', testTimeout: 30_000 } });
