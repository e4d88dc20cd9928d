import { fileURLToPath } from 'node:url';

/** Root of the repository (the pnpm workspace). */
export const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The chart under test. */
export const chartDir = fileURLToPath(new URL('../../../helm/esign/', import.meta.url));
