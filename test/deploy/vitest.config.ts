import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Checks of the deployment files (Dockerfile, compose, Helm chart). Offline: helm comes from an npm
// package, manifests are checked against the Kubernetes schemas in kubernetes-models.
export default defineConfig({
  test: {
    name: 'deploy',
    root: fileURLToPath(new URL('.', import.meta.url)),
    include: ['**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
  },
});
