import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import { makePdf, pdfSig, startTestTsa } from '@esign/testing';
import type { TestTsa } from '@esign/testing';
import type { TimestampSettings } from '../src/domain/ltv/request-timestamp';
import { startSignPool } from '../src/workers/start-sign-pool';
import type { SignWarmUp } from '../src/workers/warm-up-plan';
import { valueOf } from '@esign/testing';
import { scrapeMetrics } from './scrape-metrics';
import { startTestSigner } from './start-test-signer';
import type { TestSigner } from './start-test-signer';

/**
 * A valid PDF of `pages` empty pages that share one content stream: cheap to make and to send
 * (~120 bytes a page), expensive to sign (every page is parsed, kept in memory and written again).
 */
const manyPagesPdf = (pages: number): Buffer => {
  const parts: string[] = [];
  const offsets: number[] = [];
  let length = 0;
  const add = (text: string) => {
    parts.push(text);
    length += text.length;
  };
  const obj = (num: number, body: string) => {
    offsets[num] = length;
    add(`${num} 0 obj\n${body}\nendobj\n`);
  };
  add('%PDF-1.7\n');
  obj(1, '<< /Type /Catalog /Pages 2 0 R >>');
  const kids = Array.from({ length: pages }, (_, i) => `${i + 4} 0 R`).join(' ');
  obj(2, `<< /Type /Pages /Count ${pages} /Kids [${kids}] >>`);
  obj(3, '<< /Length 0 >>\nstream\n\nendstream');
  for (let i = 0; i < pages; i++) {
    obj(i + 4, '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R >>');
  }
  const size = pages + 4;
  const xref = length;
  add(`xref\n0 ${size}\n0000000000 65535 f \n`);
  for (let i = 1; i < size; i++) add(`${String(offsets[i]).padStart(10, '0')} 00000 n \n`);
  add(`trailer\n<< /Size ${size} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.from(parts.join(''), 'latin1');
};

/** 150,000 pages (~18 MB): several seconds of signing, and hundreds of MB of heap. */
const HEAVY_PAGES = 150_000;

const timed = async <T>(work: Promise<T>) => {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
};

describe('a job past its budget', () => {
  // 1 s: since the parser got faster, the heavy document below signed within 2 s on a quiet machine
  // (once in CI), and nothing ran over.
  const BUDGET_MS = 1000;
  let sut: TestSigner;
  beforeAll(async () => {
    sut = await startTestSigner({
      SIGN_WORKERS: '2',
      MAX_CONCURRENT_SIGNS: '2',
      SIGN_JOB_BUDGET_MS: String(BUDGET_MS),
      // Room for the heavy document, so that the budget, not the heap, is what ends it.
      SIGN_WORKER_HEAP_MB: '2048',
    });
    // Signings through the whole service first (both workers warmed themselves up at start).
    await Promise.all([sut.sign(await makePdf()), sut.sign(await makePdf())]);
  });
  afterAll(async () => {
    await sut?.stop();
  });

  it('is ended at its budget with invalid_argument on file, while a normal signing sent meanwhile completes promptly', async () => {
    const heavy = manyPagesPdf(HEAVY_PAGES);
    const normalPdf = await makePdf();
    const started = performance.now();
    const heavyOutcome = timed(sut.signError(heavy));
    // The heavy job is on its worker by now (upload + fetch of 18 MB: well under this). Kept as a
    // wait on time: nothing outside the service tells when a worker has taken a job.
    await new Promise((resolve) => setTimeout(resolve, 400));
    const normal = await timed(sut.sign(normalPdf));
    const normalDoneAt = performance.now() - started;
    const { value: err, ms: heavyMs } = await heavyOutcome;

    expect(err).toMatchObject({ code: 'invalid_argument', field: 'file' });
    expect(err.message).toBe('file: the document is too complex to sign within 1 s');
    // Answered at the budget (plus the 18 MB upload and fetch), not after the several seconds of work.
    expect(heavyMs).toBeGreaterThanOrEqual(BUDGET_MS);
    expect(heavyMs).toBeLessThan(BUDGET_MS + 3000);
    // The normal signing did not wait for the heavy one.
    expect(normal.ms).toBeLessThan(1500);
    expect(normalDoneAt).toBeLessThan(heavyMs);
    expect((await pdfSig(normal.value.signed)).stdout).toContain('Signature is Valid.');
  });

  it('replaces the ended worker: two signings at once both succeed afterwards', async () => {
    const results = await Promise.all([sut.sign(await makePdf()), sut.sign(await makePdf({ pages: 2 }))]);
    expect(results.map((r) => r.reply.pageCount)).toEqual([2, 3]);
    const ready = await fetch(`http://127.0.0.1:${sut.service.healthPort}/readyz`);
    expect(ready.status).toBe(200);
    // The heavy job counts as over its time budget, and both workers are up again.
    const { samples } = await scrapeMetrics(sut);
    expect(
      valueOf(samples, 'esign_signer_job_duration_count', {
        esign_job: 'sign',
        esign_outcome: 'over_budget',
      }),
    ).toBe(1);
    expect(
      valueOf(samples, 'esign_signer_jobs_over_budget_total', { esign_job: 'sign', esign_budget: 'time' }),
    ).toBe(1);
    // The replacement counts once it has warmed up (it may still be: both signings above can go to one).
    await expect
      .poll(async () => valueOf((await scrapeMetrics(sut)).samples, 'esign_signer_workers'), {
        timeout: 15_000,
      })
      .toBe(2);
  });
});

describe('pdf.inspect on the signing workers', () => {
  // Well below what reading the heavy file takes even on a quiet machine (150,000 pages were read
  // within 2 s there), well above an ordinary signing on a loaded one.
  const INSPECT_BUDGET_MS = 1000;
  const INSPECT_HEAVY_PAGES = 300_000;
  let sut: TestSigner;
  beforeAll(async () => {
    // A pool of its own: both workers ready (the pool starts them all before it serves).
    sut = await startTestSigner({
      SIGN_WORKERS: '2',
      MAX_CONCURRENT_SIGNS: '2',
      SIGN_JOB_BUDGET_MS: String(INSPECT_BUDGET_MS),
      SIGN_WORKER_HEAP_MB: '2048',
      MAX_FILE_BYTES: String(64 * 1024 * 1024),
    });
  });
  afterAll(async () => {
    await sut?.stop();
  });

  it('runs pdf.inspect on the workers too: an inspection past the budget ends the same way, and a signing sent meanwhile completes promptly', async () => {
    // Reading 300,000 pages takes seconds: on the thread that serves NATS it would hold every other
    // request that long.
    const heavy = manyPagesPdf(INSPECT_HEAVY_PAGES);
    const normalPdf = await makePdf();
    const started = performance.now();
    const heavyOutcome = timed(sut.inspect(heavy));
    // The heavy inspection is on its worker by now, as above (no signal outside the service says so).
    await new Promise((resolve) => setTimeout(resolve, 400));
    const normal = await timed(sut.sign(normalPdf));
    const normalDoneAt = performance.now() - started;
    const { value: err, ms: heavyMs } = await heavyOutcome;

    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: 'invalid_argument', field: 'file' });
    expect((err as ServiceError).message).toBe('file: the document is too complex to read within 1 s');
    expect(heavyMs).toBeGreaterThanOrEqual(INSPECT_BUDGET_MS);
    expect(heavyMs).toBeLessThan(INSPECT_BUDGET_MS + 3000);
    expect(normal.ms).toBeLessThan(1500);
    expect(normalDoneAt).toBeLessThan(heavyMs);
    expect((await pdfSig(normal.value.signed)).stdout).toContain('Signature is Valid.');
    // An ordinary document is read on a worker and answers its page count.
    expect(await sut.inspect(await makePdf({ pages: 3 }))).toMatchObject({ pageCount: 3 });
  });
});

describe('a worker that runs out of memory', () => {
  let sut: TestSigner;
  beforeAll(async () => {
    sut = await startTestSigner({
      SIGN_WORKERS: '1',
      SIGN_JOB_BUDGET_MS: '60000',
      // The grace on SIGTERM must outlast a job's budget.
      SHUTDOWN_GRACE_MS: '70000',
      // Enough for the fonts and an ordinary document, not for 150,000 pages.
      SIGN_WORKER_HEAP_MB: '160',
    });
  });
  afterAll(async () => {
    await sut?.stop();
  });

  it('answers invalid_argument on file naming the limit, and the replaced worker signs the next document', async () => {
    const err = await sut.signError(manyPagesPdf(HEAVY_PAGES));
    expect(err).toMatchObject({ code: 'invalid_argument', field: 'file' });
    expect(err.message).toBe('file: the document needs more memory to sign than a signer allows (160 MB)');
    const { signed, reply } = await sut.sign(await makePdf());
    expect(reply.pageCount).toBe(2);
    expect((await pdfSig(signed)).stdout).toContain('Signature is Valid.');
    const { samples } = await scrapeMetrics(sut);
    expect(
      valueOf(samples, 'esign_signer_jobs_over_budget_total', { esign_job: 'sign', esign_budget: 'memory' }),
    ).toBe(1);
    // V8 collects garbage harder and harder before giving up: reaching the limit takes seconds.
  }, 60_000);
});

describe('the pool at start-up', () => {
  const started = async (timestamps?: TimestampSettings, spillMs?: number, warmUp?: SignWarmUp) => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({
      service: 'pdf-signer',
      level: 'info',
      write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    const pool = await startSignPool({
      size: 2,
      jobBudgetMs: 30_000,
      workerHeapMb: 256,
      logger,
      timestamps,
      ...(spillMs === undefined ? {} : { spillMs }),
      ...(warmUp ? { warmUp } : {}),
    });
    return { pool, lines, ready: lines.filter((l) => l.msg === 'signing worker ready') };
  };
  const input = async () => ({
    bytes: await makePdf(),
    kind: 'pdf' as const,
    fileName: 'a.pdf',
    signature: { mode: 'type' as const, typedName: 'Jane Doe', color: '#000000' },
    positions: [{ x: 50, y: 85, page: 0, width: 25 }],
    signer: { name: 'Jane Doe', email: 'jane@example.com', ipAddress: '127.0.0.1', userAgent: 'test' },
    receivedAt: new Date().toISOString(),
  });

  it('warms every worker up within its budget before it takes jobs, and keeps short documents on the warmest worker', async () => {
    // A spill time no signing here reaches even on a loaded machine: the policy, not the timing, is tested.
    const { pool, ready } = await started(undefined, 10_000, { budgetMs: 60_000, maxSignings: 3 });
    try {
      expect(ready).toHaveLength(2);
      // The most signings, well within the time: exactly that many each.
      for (const line of ready) {
        expect(line.warmUpMs).toBeGreaterThanOrEqual(0);
        expect(line.warmUpSignings).toBe(3);
      }
      // Its own signings are not jobs: the warmest-worker policy starts from none.
      expect(pool.jobsPerWorker()).toEqual([0, 0]);
      // One at a time: always the same worker, so its heap holds the garbage of the last document
      // and V8 compiles the signing code in one isolate only; the other stays untouched.
      for (let i = 0; i < 4; i++) await pool.sign(await input());
      expect(pool.jobsPerWorker().sort()).toEqual([0, 4]);
      // Two short ones at once: the second waits for the warm worker (done well within spillMs).
      const [a, b] = await Promise.all([pool.sign(await input()), pool.sign(await input())]);
      expect([a.pageCount, b.pageCount]).toEqual([2, 2]);
      expect(pool.jobsPerWorker().sort()).toEqual([0, 6]);
      // An inspection is a job of the same pool (same queue, budget and heap limit).
      expect(await pool.inspect(await makePdf({ pages: 3 }))).toMatchObject({ pageCount: 3 });
      expect(pool.jobsPerWorker().reduce((sum, n) => sum + n, 0)).toBe(7);
    } finally {
      await pool.close();
    }
  });

  it('with spillMs 0 gives a job to any idle worker at once: two at a time, both workers sign', async () => {
    const { pool } = await started(undefined, 0);
    try {
      await pool.sign(await input());
      await Promise.all([pool.sign(await input()), pool.sign(await input())]);
      expect(pool.jobsPerWorker().sort()).toEqual([1, 2]);
    } finally {
      await pool.close();
    }
  });

  it('warms up offline when signatures are timestamped: no TSA is asked', async () => {
    // Nothing listens there: a warm-up that asked it would fail and log a warning.
    const { pool, lines, ready } = await started(
      { urls: ['http://127.0.0.1:9/'], timeoutMs: 500, maxTokenBytes: 12_288 },
      undefined,
      { budgetMs: 60_000, maxSignings: 2, padesLevel: 'B-LTA' },
    );
    try {
      expect(ready).toHaveLength(2);
      for (const line of ready) expect(line).toMatchObject({ warmUpSignings: 2 });
      expect(lines.map((l) => String(l.msg))).not.toContain('signing worker warm-up failed');
    } finally {
      await pool.close();
    }
  });

  it('does no warm-up without one asked for', async () => {
    const { pool, ready } = await started();
    try {
      expect(ready).toHaveLength(2);
      for (const line of ready) expect(line).not.toHaveProperty('warmUpMs');
    } finally {
      await pool.close();
    }
  });
});

describe('a signing waiting for its timestamp', () => {
  const silent = createLogger({ service: 'pdf-signer', level: 'error', write: () => undefined });
  const signInput = async (bytes?: Buffer) => ({
    bytes: bytes ?? (await makePdf()),
    kind: 'pdf' as const,
    fileName: 'a.pdf',
    signature: { mode: 'type' as const, typedName: 'Jane Doe', color: '#000000' },
    positions: [{ x: 50, y: 85, page: 0, width: 25 }],
    signer: { name: 'Jane Doe', email: 'jane@example.com', ipAddress: '127.0.0.1', userAgent: 'test' },
    receivedAt: new Date().toISOString(),
  });
  const timestamps = (tsa: TestTsa): TimestampSettings => ({
    urls: [tsa.url],
    timeoutMs: 10_000,
    maxTokenBytes: 12_288,
  });

  describe('with a TSA answering every request after 300 ms, concurrently', () => {
    const DELAY_MS = 300;
    let tsa: TestTsa;
    beforeAll(async () => {
      tsa = await startTestTsa({ delayMs: DELAY_MS });
    });
    afterAll(async () => {
      await tsa?.stop();
    });

    it('holds no worker: six signings at once on one worker overlap their waits, and each is valid', async () => {
      const pool = await startSignPool({
        size: 1,
        jobBudgetMs: 30_000,
        workerHeapMb: 256,
        logger: silent,
        timestamps: timestamps(tsa),
      });
      try {
        // One first, so that the six measure waiting rather than V8 compiling the signing code.
        await pool.sign(await signInput());
        const inputs = await Promise.all(Array.from({ length: 6 }, () => signInput()));
        const started = performance.now();
        const results = await Promise.all(inputs.map((input) => pool.sign(input)));
        const ms = performance.now() - started;
        // One at a time they would take 6 x 300 ms at least; overlapping, about one wait and six
        // signings' CPU (a few hundred ms on a loaded machine).
        expect(ms).toBeLessThan(4 * DELAY_MS);
        for (const result of results) {
          expect(result.timestamp?.tsaMs).toBeGreaterThanOrEqual(DELAY_MS - 5);
          expect((await pdfSig(result.bytes)).stdout).toContain('Signature is Valid.');
        }
        expect(pool.jobsPerWorker()).toEqual([7]);
      } finally {
        await pool.close();
      }
    });

    it('with maxJobsPerWorker 1, a worker holds one signing, waiting included: the same six take six waits', async () => {
      const pool = await startSignPool({
        size: 1,
        maxJobsPerWorker: 1,
        jobBudgetMs: 30_000,
        workerHeapMb: 256,
        logger: silent,
        timestamps: timestamps(tsa),
      });
      try {
        const inputs = await Promise.all(Array.from({ length: 6 }, () => signInput()));
        const started = performance.now();
        await Promise.all(inputs.map((input) => pool.sign(input)));
        expect(performance.now() - started).toBeGreaterThanOrEqual(6 * DELAY_MS);
      } finally {
        await pool.close();
      }
    });
  });

  describe('a worker ended over the budget of one of its jobs', () => {
    // As in the test above: 150,000 pages take well over 1 s (2 s no longer, since parsing got faster).
    const BUDGET_MS = 1000;
    const DELAY_MS = 4000;
    let tsa: TestTsa;
    beforeAll(async () => {
      tsa = await startTestTsa({ delayMs: 100 });
    });
    afterAll(async () => {
      await tsa?.stop();
    });

    it('answers the jobs waiting on it unavailable (retry) at once, and the job that ran over invalid_argument', async () => {
      const lines: Record<string, unknown>[] = [];
      const pool = await startSignPool({
        size: 1,
        jobBudgetMs: BUDGET_MS,
        // Room for the heavy document, so that the budget, not the heap, is what ends it.
        workerHeapMb: 2048,
        logger: createLogger({
          service: 'pdf-signer',
          level: 'warn',
          write: (line) => lines.push(JSON.parse(line) as Record<string, unknown>),
        }),
        timestamps: timestamps(tsa),
      });
      try {
        // Warm, so that the two below reach their wait well within budget; then tokens take 4 s, longer
        // than the budget: they would be ended for it if the heavy document were not what holds the worker.
        await pool.sign(await signInput());
        tsa.setMode('ok', { delayMs: DELAY_MS });
        const started = performance.now();
        const settled = (work: Promise<unknown>) =>
          work.then(
            () => ({ error: undefined, ms: performance.now() - started }),
            (error: unknown) => ({ error, ms: performance.now() - started }),
          );
        const waiting = await Promise.all([signInput(), signInput()]).then((inputs) =>
          inputs.map((input) => settled(pool.sign(input))),
        );
        // Both wait for their tokens by now (a warm signing takes tens of ms): the heavy document
        // goes to the same worker, and runs for seconds.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const heavy = settled(pool.sign(await signInput(manyPagesPdf(HEAVY_PAGES))));

        const heavyOutcome = await heavy;
        expect(heavyOutcome.error).toMatchObject({ code: 'invalid_argument', field: 'file' });
        expect((heavyOutcome.error as Error).message).toBe(
          'file: the document is too complex to sign within 1 s',
        );
        for (const outcome of await Promise.all(waiting)) {
          expect(outcome.error).toBeInstanceOf(ServiceError);
          expect(outcome.error).toMatchObject({ code: 'unavailable' });
          expect((outcome.error as Error).message).toMatch(/restarted.*retry/);
          // Answered when the worker was ended, not when their tokens would have come.
          expect(outcome.ms).toBeLessThan(DELAY_MS);
        }
        expect(
          lines.find((l) => l.msg === 'signing job over its budget: worker ended and replaced'),
        ).toMatchObject({ otherJobs: 2 });
        // The worker is replaced.
        await expect.poll(() => pool.readyWorkers(), { timeout: 15_000 }).toBe(1);
      } finally {
        await pool.close();
      }
    }, 30_000);
  });
});
