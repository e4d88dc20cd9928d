import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf, singleValue } from '@esign/testing';
import {
  createAccount,
  labelValues,
  sampleLines,
  scrapeAll,
  signForm,
  startMetricsStack,
  type MetricsStack,
  type TestAccount,
} from './harness';

// 1,000 signings for 50 accounts (a signing refused with 400 besides, per account), 8 at a time: the
// number of series after the first 10 accounts' signings is the number after all 50, and no label
// value names an account, a key, an audit ID, an email, the client's address or a file.
const ACCOUNTS = 50;
const FIRST = 10;
const PER_ACCOUNT = 20;
const CONCURRENCY = 8;
/** The client signs from an address of its own, so that it can be looked for in the label values. */
const CLIENT_ADDRESS = '127.0.0.7';

let stack: MetricsStack;
let pdf: Buffer;
const accounts: TestAccount[] = [];
const auditIds: string[] = [];
const fileNames: string[] = [];
const signerEmails: string[] = [];

/** POST /api/v1/sign from CLIENT_ADDRESS; resolves with the status and the audit ID. */
const signFrom = async (account: TestAccount, form: FormData) => {
  const encoded = new Request('http://localhost/', { method: 'POST', body: form });
  const body = Buffer.from(await encoded.arrayBuffer());
  const url = new URL(`${stack.gatewayUrl}/api/v1/sign`);
  return new Promise<{ status: number; auditId: string | undefined }>((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: CLIENT_ADDRESS,
        headers: {
          Authorization: `Bearer ${account.apiKey}`,
          'Content-Type': encoded.headers.get('content-type') ?? '',
          'Content-Length': body.length,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const auditId = res.headers['x-audit-id'];
          resolve({
            status: res.statusCode ?? 0,
            auditId: typeof auditId === 'string' ? auditId : undefined,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
};

/** Every signing of these accounts (and one refused signing each), CONCURRENCY at a time. */
const signFor = async (group: TestAccount[]) => {
  const jobs = group.flatMap((account, a) => [
    { account, n: -1, refused: true },
    ...Array.from({ length: PER_ACCOUNT }, (_, n) => ({ account, n, refused: false, a })),
  ]);
  let next = 0;
  const failures: string[] = [];
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < jobs.length) {
        const job = jobs[next++];
        if (!job) break;
        const tag = job.account.accountId.slice(0, 8);
        const fileName = `cardinality-${tag}-${job.n}.pdf`;
        const signerEmail = `signer-${tag}@example.org`;
        fileNames.push(fileName);
        signerEmails.push(signerEmail);
        const fields: Record<string, string> = {
          signerEmail,
          mode: 'type',
          typedName: 'Card Holder',
          ...(job.refused ? {} : { signerName: `Signer ${tag}` }),
        };
        const { status, auditId } = await signFrom(
          job.account,
          signForm(fields, { bytes: pdf, name: fileName }),
        );
        if (auditId) auditIds.push(auditId);
        if (status !== (job.refused ? 400 : 200)) failures.push(`${fileName}: ${status}`);
      }
    }),
  );
  expect(failures).toEqual([]);
};

/** Series now: sample lines of every process's /metrics, and what Prometheus holds after a scrape. */
const seriesNow = async () => {
  // Two scrape intervals: Prometheus has seen the last signings.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  const scraped = await scrapeAll(stack);
  const byService = Object.fromEntries(
    scraped.map(({ service, text }) => [service, sampleLines(text).length]),
  );
  const inPrometheus = singleValue(await stack.prometheus.query('count({__name__=~".+"})'));
  // Each series by its name and labels (the value cut off), to name any that appeared.
  const series = scraped.flatMap(({ service, text }) =>
    sampleLines(text).map((line) => `${service} ${line.slice(0, line.lastIndexOf(' '))}`),
  );
  return {
    byService,
    series,
    total: Object.values(byService).reduce((a, b) => a + b, 0),
    inPrometheus,
    scraped,
  };
};

beforeAll(async () => {
  stack = await startMetricsStack({
    label: 'metrics_cardinality',
    // The sweeps run (and their series appear) before the first count, not in the middle of the test:
    // series that come with time are not series that come with accounts.
    serviceEnv: { 'document-store': { SIGNED_SWEEP_INTERVAL_MS: '1000', SIGNING_SWEEP_INTERVAL_MS: '1000' } },
  });
  pdf = await makePdf({ pages: 1 });
  for (let i = 0; i < ACCOUNTS; i++) accounts.push(await createAccount(stack.bus));
});

afterAll(async () => {
  await stack?.stop();
});

describe('metrics cardinality', () => {
  it(
    `keeps the same series for ${ACCOUNTS} accounts as for ${FIRST} (${ACCOUNTS * PER_ACCOUNT} signings), and no label names a tenant, a person or a file`,
    { timeout: 600_000 },
    async () => {
      let started = performance.now();
      await signFor(accounts.slice(0, FIRST));
      const firstSeconds = (performance.now() - started) / 1000;
      const afterFirst = await seriesNow();

      started = performance.now();
      await signFor(accounts.slice(FIRST));
      const restSeconds = (performance.now() - started) / 1000;
      const afterAll = await seriesNow();

      const signings = ACCOUNTS * PER_ACCOUNT;
      console.log(
        [
          `${signings} signings (+${ACCOUNTS} refused) for ${ACCOUNTS} accounts at concurrency ${CONCURRENCY}:`,
          `first ${FIRST} accounts ${firstSeconds.toFixed(1)} s, the other ${ACCOUNTS - FIRST} ${restSeconds.toFixed(1)} s`,
          `(${(signings / (firstSeconds + restSeconds)).toFixed(1)} signings/s);`,
          `series after ${FIRST} accounts: ${afterFirst.total} in /metrics (${JSON.stringify(afterFirst.byService)}), ${afterFirst.inPrometheus} in Prometheus;`,
          `after ${ACCOUNTS}: ${afterAll.total} (${JSON.stringify(afterAll.byService)}), ${afterAll.inPrometheus} in Prometheus`,
        ].join(' '),
      );
      expect(auditIds).toHaveLength(signings);
      expect(afterAll.series.filter((line) => !afterFirst.series.includes(line))).toEqual([]);
      expect(afterAll.byService).toEqual(afterFirst.byService);
      expect(afterAll.inPrometheus).toBe(afterFirst.inPrometheus);

      const values = afterAll.scraped.flatMap(({ text }) => labelValues(text));
      const forbidden = [
        ...accounts.flatMap((account) => [account.accountId, account.keyId, account.email, account.apiKey]),
        ...auditIds,
        ...fileNames,
        ...signerEmails,
        CLIENT_ADDRESS,
      ];
      const found = forbidden.filter((needle) => values.some((value) => value.includes(needle)));
      expect(found).toEqual([]);
      // Nothing shaped like one either (another account's, from a source this test does not know).
      const shaped = values.filter((value) =>
        /ESG-[A-Z0-9]{4}-|@|\.pdf$|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/i.test(value),
      );
      expect(shaped).toEqual([]);
    },
  );
});
