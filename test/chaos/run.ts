/**
 * `pnpm chaos`: every fault scenario under a burst of concurrent signings, each on infrastructure of
 * its own (nats-server from PATH, embedded Postgres or a test database, the embedded S3 server), then
 * one table; then the repeated faults (repeat-scenarios.ts: Postgres restarted 20×, NATS and S3 5×,
 * every service process alive at the end) and the NATS cluster family (cluster-scenarios.ts). Exits
 * non-zero when a scenario does not hold. Each scenario has a deadline (its fault
 * plus the audit's retry budget plus 240 s, or --deadline seconds); a scenario past it, or whose
 * service process exited, is a failed row and the run moves on.
 * `--only cluster` runs the NATS cluster family (cluster-scenarios.ts) alone.
 *   pnpm chaos [--requests 60] [--concurrency 8] [--only "NATS"] [--deadline 300] [--audit-budget 60]
 */
import { parseArgs } from 'node:util';
import { AUDIT_RETRY_BUDGET, failedReport, formatTable, runScenario, type Report } from './harness';
import { CLUSTER_SCENARIOS } from './cluster-scenarios';
import { REPEAT_SCENARIOS } from './repeat-scenarios';
import { SCENARIOS } from './scenarios';

const { values: args } = parseArgs({
  options: {
    requests: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '8' },
    only: { type: 'string' },
    deadline: { type: 'string' },
    'audit-budget': { type: 'string' },
  },
});

const seconds = (value: string | undefined): number | undefined =>
  value === undefined ? undefined : Number(value) * 1000;
const auditBudgetMs = seconds(args['audit-budget']);
const guards = {
  deadlineMs: seconds(args.deadline),
  auditRetry:
    auditBudgetMs === undefined ? AUDIT_RETRY_BUDGET : { ...AUDIT_RETRY_BUDGET, budgetMs: auditBudgetMs },
};

const reports: Report[] = [];
// The cluster family last (`--only cluster` selects it): it starts three nats-servers per scenario.
for (const scenario of [...SCENARIOS, ...REPEAT_SCENARIOS, ...CLUSTER_SCENARIOS]) {
  if (args.only && !scenario.name.toLowerCase().includes(args.only.toLowerCase())) continue;
  process.stdout.write(`running: ${scenario.name}\n`);
  try {
    reports.push(
      await runScenario(
        scenario,
        { requests: Number(args.requests), concurrency: Number(args.concurrency) },
        (line) => process.stdout.write(`${line}\n`),
        guards,
      ),
    );
  } catch (err) {
    // runScenario reports its own failures; this is the last net, so that the table is always printed.
    reports.push(
      failedReport(scenario.name, `did not run: ${err instanceof Error ? err.message : String(err)}`),
    );
  }
}
process.stdout.write(`\n${formatTable(reports)}\n`);
for (const r of reports) if (r.notes.length) process.stdout.write(`${r.scenario}: ${r.notes.join('; ')}\n`);
for (const r of reports.filter((x) => !x.holds))
  process.stdout.write(`\n${r.scenario} does not hold:\n  ${r.problems.slice(0, 20).join('\n  ')}\n`);
// Exit now: a scenario stopped by its deadline may have left a timer or a socket behind, and the run
// is over (stdout to a file or a pipe is written synchronously).
process.exit(reports.every((r) => r.holds) ? 0 : 1);
