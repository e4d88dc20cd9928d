/**
 * `pnpm chaos`: every fault scenario under a burst of concurrent signings, each on infrastructure of
 * its own (nats-server from PATH, embedded Postgres or a test database, the embedded S3 server), then
 * one table. Exits non-zero when a scenario does not hold.
 *   pnpm chaos [--requests 60] [--concurrency 8] [--only "NATS"]
 */
import { parseArgs } from 'node:util';
import { formatTable, runScenario, type Report } from './harness';
import { SCENARIOS } from './scenarios';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '8' },
    only: { type: 'string' },
  },
});

const reports: Report[] = [];
for (const scenario of SCENARIOS) {
  if (args.only && !scenario.name.toLowerCase().includes(args.only.toLowerCase())) continue;
  process.stdout.write(`running: ${scenario.name}\n`);
  try {
    reports.push(
      await runScenario(
        scenario,
        { requests: Number(args.requests), concurrency: Number(args.concurrency) },
        (line) => process.stdout.write(`${line}\n`),
      ),
    );
  } catch (err) {
    process.stdout.write(
      `${scenario.name} could not run: ${err instanceof Error ? err.stack : String(err)}\n`,
    );
    reports.push({
      scenario: scenario.name,
      requests: 0,
      byStatus: {},
      records: 0,
      objects: 0,
      events: 0,
      duplicates: 0,
      orphans: 0,
      recoveryMs: undefined,
      retried: 0,
      okP50Ms: undefined,
      slowestMs: 0,
      okRate: { before: 0, during: 0 },
      notes: [],
      problems: ['did not run'],
      holds: false,
    });
  }
}
process.stdout.write(`\n${formatTable(reports)}\n`);
for (const r of reports) if (r.notes.length) process.stdout.write(`${r.scenario}: ${r.notes.join('; ')}\n`);
process.exitCode = reports.every((r) => r.holds) ? 0 : 1;
