import { describe, expect, it } from 'vitest';
import { formatTable, runScenario } from './harness';
import { killSigner, restartNats } from './scenarios';

// A sign request answers within SIGN_TIMEOUT_MS of its upload (one deadline for all its calls), plus a
// short clean-up after a failure: the harness's default bound (SIGN_TIMEOUT_MS + 10 s) holds it to that.
const load = { requests: 16, concurrency: 4 };
// The signer scenario's fault is felt only by a signing in flight on a replica when it is killed. Forty
// pages keep each replica busy most of the time (a one-page signing takes a few ms), and the load may
// not stop at its default cap (4 x 32 requests) before the second kill: it did, and that kill then
// found nothing to cut while the first had fallen between signings, so nothing was retried.
const signerLoad = { requests: 32, concurrency: 4, pages: 40, maxRequests: 1000 };
const log = (line: string) => {
  if (process.env.CHAOS_LOGS) console.log(line);
};

describe('faults under load', () => {
  it('kill -9 of one signer replica, then the other, restarted: every client told the truth', async () => {
    const report = await runScenario(killSigner, signerLoad, log);
    expect(report.problems, formatTable([report])).toEqual([]);
    // The fault was felt: some requests failed and were retried in the audit phase.
    expect(report.retried).toBeGreaterThan(0);
    // The fault was felt (some request failed and was retried) and everything was accounted for.
    expect(report.records).toBeGreaterThanOrEqual(report.byStatus['200'] ?? 0);
    expect(report.events).toBe(report.records);
    expect(report.objects).toBe(report.records);
  });

  it('NATS down 5 s and back with its JetStream store: nothing lost, nothing published twice', async () => {
    const report = await runScenario(restartNats, load, log);
    expect(report.problems, formatTable([report])).toEqual([]);
    // The fault was felt: some requests failed and were retried in the audit phase.
    expect(report.retried).toBeGreaterThan(0);
    expect(report.events).toBe(report.records);
    expect(report.objects).toBe(report.records);
  });
});
