import { describe, expect, it } from 'vitest';
import { formatTable, runScenario, type Scenario } from './harness';
import { terminateServiceConnections } from './repeat-scenarios';

/**
 * Issue 27's bug, for every service process at once: a `pg` client checked out of a pool (a
 * transaction, a sweep's lock session, the outbox relay's pass) had no `error` listener, so a
 * connection reset by the server ended the process. Here every service (the mailer, webhook and
 * template included) runs as its own process under a light signing load, with its database loops
 * polling fast so that some connection is always checked out; the connections to the stack's own test
 * database are ended from the server side again and again (`pg_terminate_backend`) and the stack's own
 * nats-server is restarted once. Every process must keep its pid, signing must work, and the audit hold,
 * the deliveries' too: every send's email and every signed document's webhook exactly once.
 */
const KILLS = 6;

const connectionsKilledAndNatsRestarted: Scenario = {
  name: 'server-side connection kills + NATS restart',
  allServices: true,
  samePids: true,
  faultMs: 10_000,
  serviceEnv: {
    'document-store': { OUTBOX_POLL_MS: '50', SIGNING_SWEEP_INTERVAL_MS: '50' },
    webhook: { WEBHOOK_POLL_INTERVAL_MS: '50', WEBHOOK_SWEEP_INTERVAL_MS: '200' },
  },
  async inject(ctx) {
    let ended = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      ended += await terminateServiceConnections(ctx.infra.postgres.url);
      await ctx.sleep(300 + (kill % 3) * 100);
    }
    ctx.note(`${ended} connections ended by pg_terminate_backend in ${KILLS} rounds`);
    await ctx.infra.nats.stop();
    await ctx.sleep(1000);
    await ctx.infra.nats.start();
  },
};

const log = (line: string) => {
  if (process.env.CHAOS_LOGS) console.log(line);
};

describe('no service exits on a dependency fault', () => {
  it('database connections killed from the server side and NATS restarted: same pids, signing works, nothing lost', async () => {
    const report = await runScenario(
      connectionsKilledAndNatsRestarted,
      // Signings in flight when NATS goes wait out their deadline: 8 s here instead of 20 s.
      { requests: 16, concurrency: 3, busTimeoutMs: 5_000, signTimeoutMs: 8_000 },
      log,
    );
    expect(report.problems, formatTable([report])).toEqual([]);
    // The connections were there to kill: the services held some when the faults came.
    const ended = /^(\d+) connections ended/.exec(report.notes.find((n) => n.includes('ended by')) ?? '');
    expect(Number(ended?.[1] ?? 0)).toBeGreaterThan(KILLS);
    expect(report.notes).toContainEqual(expect.stringMatching(/^the same 7 service processes/));
    // Signing works after the faults: the recovery probe was answered 200.
    expect(report.recoveryMs).toBeDefined();
    expect(report.events).toBe(report.records);
    expect(report.objects).toBe(report.records);
    // Sends went out beside the signings: one email per send, one webhook per signed document.
    expect(report.deliveries?.accepted).toBeGreaterThan(0);
    expect(report.deliveries?.mails).toBe(report.deliveries?.accepted);
    expect(report.deliveries?.webhooks).toBe(report.records);
  }, 120_000);
});
