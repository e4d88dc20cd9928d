/**
 * Preloaded (`--import`) into a service by `bench:envelope --count-sql`: counts the SQL statements the
 * process sends (every `query` of node-postgres's `Client`, so the pool's and transactions' too) and
 * keeps the count in the first 8 bytes of the file `BENCH_SQL_COUNT_FILE`, rewritten in place on each
 * statement, for the benchmark to read between requests (it does not depend on the machine's load).
 */
import { openSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type pgModule from 'pg';

const file = process.env.BENCH_SQL_COUNT_FILE;
if (file) {
  // The service's own node-postgres (pnpm gives each package its own node_modules).
  const require = createRequire(join(process.cwd(), 'services', 'document-store', 'package.json'));
  const pg = require('pg') as typeof pgModule;
  const fd = openSync(file, 'w');
  const count = Buffer.alloc(8);
  let statements = 0;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the client as `this`
  const query = pg.Client.prototype.query as (...args: unknown[]) => unknown;
  pg.Client.prototype.query = function countedQuery(this: unknown, ...args: unknown[]) {
    statements += 1;
    count.writeDoubleLE(statements);
    writeSync(fd, count, 0, 8, 0);
    return query.apply(this, args);
  } as typeof pg.Client.prototype.query;
}
