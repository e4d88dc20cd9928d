import { defineConfig } from 'vitest/config';

export default defineConfig({ test: { name: 'pdf-signer', testTimeout: 30000, hookTimeout: 60000 } });
