import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * How to start a worker thread on `entry`. Compiled JavaScript is started as it is. Source files run
 * through tsx, as `node --import tsx` runs the service; on Node 20 a worker does not take `--import`
 * from execArgv, so a two-line bootstrap registers tsx's loader in the worker before importing the
 * entry. Nothing else from this process's command line reaches the workers (not the telemetry
 * preload). Used by the signing pool and the verification worker.
 */
export const workerSource = (entry: URL): { source: string | URL; eval: boolean } => {
  if (!entry.pathname.endsWith('.ts')) return { source: entry, eval: false };
  const require = createRequire(import.meta.url);
  const manifestPath = require.resolve('tsx/package.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
    exports: Record<string, { import?: { default?: string } } | string>;
  };
  const exported = manifest.exports['./esm/api'];
  const api = typeof exported === 'object' ? exported.import?.default : undefined;
  if (!api) throw new Error('tsx: no ESM entry for tsx/esm/api');
  const apiUrl = pathToFileURL(join(dirname(manifestPath), api)).href;
  return {
    source:
      `import(${JSON.stringify(apiUrl)})` +
      `.then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`,
    eval: true,
  };
};
