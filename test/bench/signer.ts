/**
 * `pnpm bench:signer`: one pdf-signer process alone, driven over NATS (no gateway, no database), to
 * see what the signer itself costs. Warms it up (30 one-page and one 20 MB signing), then:
 * - signs a 20 MB PDF eight times one after another and samples the process's resident memory every
 *   3 ms: the peak above the level before, per file size, after each signing;
 * - signs 200 one-page PDFs, 4 at a time, and prints the CPU per signing of each thread of the
 *   process (from /proc/<pid>/task): the main thread, the signing workers, V8's platform threads.
 * BENCH_SIGNER_ENV='{"SIGN_WORKERS":"1"}' adds settings to the signer's environment;
 * BENCH_SIGNER_LARGE=0 leaves the 20 MB signings out (the warm-up's included); BENCH_SIGNER_WINDOWS=N
 * repeats the 200 one-page signings N times and prints each (how the CPU per signing falls as V8
 * compiles the code and sizes the heaps, from a signer just started).
 */
import { randomUUID } from 'node:crypto';
import { createBlobStore } from '@esign/blob';
import { connectBus } from '@esign/bus';
import { PdfSign } from '@esign/contracts';
import { startTestStack } from '../support/test-stack';
import { createLogger } from '@esign/telemetry';
import { makeLargePdf, makePdf, makePng } from '@esign/testing';
import { rssBytes, threadCpuMs } from './proc';

const MB = 1024 * 1024;
const LARGE_ROUNDS = Number(process.env.BENCH_SIGNER_LARGE ?? 8);
const WINDOWS = Math.max(1, Number(process.env.BENCH_SIGNER_WINDOWS ?? 1));
const SMALL_SIGNS = 200;
const SMALL_CONCURRENCY = 4;

// Made only when the 20 MB signings run.
const large = LARGE_ROUNDS > 0 ? await makeLargePdf(20 * MB) : Buffer.alloc(0);
const small = await makePdf({ pages: 1 });
const png = await makePng({ width: 300, height: 100 });
const env = JSON.parse(process.env.BENCH_SIGNER_ENV ?? '{}') as Record<string, string>;
const test = await startTestStack({
  label: 'bench_signer',
  env: { LOG_LEVEL: 'error' },
  services: ['pdf-signer'],
  serviceEnv: { 'pdf-signer': { TSA_URLS: '', ...env } },
});
try {
  const pid = test.stack.pids()['pdf-signer']?.[0];
  if (pid === undefined) throw new Error('no signer process');
  const bus = await connectBus({
    url: test.natsUrl,
    name: 'bench-signer',
    prefix: test.busPrefix,
    logger: createLogger({ service: 'bench', level: 'error' }),
    timeoutMs: 60_000,
  });
  const blob = createBlobStore({ ...test.s3, bucket: 'esign' });
  const sign = async (bytes: Buffer) => {
    const uploadKey = `uploads/${randomUUID()}`;
    await blob.put(uploadKey, bytes);
    await bus.request(PdfSign, {
      accountId: randomUUID(),
      uploadKey,
      fileName: 'bench.pdf',
      kind: 'pdf',
      signature: { mode: 'draw', imageBase64: png.toString('base64') },
      positions: [{ x: 50, y: 85, page: 0, width: 25 }],
      signer: { name: 'Bench', email: 'bench@example.com', ipAddress: '127.0.0.1', userAgent: 'bench' },
      receivedAt: new Date().toISOString(),
    });
  };
  for (let i = 0; i < 30; i++) await sign(small);
  if (LARGE_ROUNDS > 0) await sign(large);
  await new Promise((r) => setTimeout(r, 300));

  const base = rssBytes(pid);
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 3);
  const afterEach: string[] = [];
  for (let i = 0; i < LARGE_ROUNDS; i++) {
    await sign(large);
    afterEach.push(((peak - base) / large.length).toFixed(2));
  }
  clearInterval(sampler);

  /** 200 one-page signings, 4 at a time: the CPU per signing, in total and by thread. */
  const measureWindow = async () => {
    const before = threadCpuMs(pid);
    let next = 0;
    await Promise.all(
      Array.from({ length: SMALL_CONCURRENCY }, async () => {
        while (next++ < SMALL_SIGNS) await sign(small);
      }),
    );
    const after = threadCpuMs(pid);
    const perThread = [...after]
      .map(([tid, ms]) => ({ tid, ms: (ms - (before.get(tid) ?? 0)) / SMALL_SIGNS }))
      .filter((t) => t.ms > 0);
    const total = perThread.reduce((sum, t) => sum + t.ms, 0);
    return `${total.toFixed(2)} ms CPU per signing; by thread (id: ms; the lowest id is the main thread):\n  ${perThread.map((t) => `${t.tid}: ${t.ms.toFixed(2)}`).join(', ')}`;
  };
  const windows: string[] = [];
  for (let w = 0; w < WINDOWS; w++) windows.push(await measureWindow());
  process.stdout.write(
    [
      '',
      `settings: ${JSON.stringify(env)}; signer resident memory before: ${(base / MB).toFixed(0)} MB`,
      ...(LARGE_ROUNDS > 0
        ? [
            `20 MB x ${LARGE_ROUNDS}, one at a time: peak above that / file size, after each: ${afterEach.join(' ')}`,
          ]
        : []),
      ...windows.map(
        (line, w) =>
          `1 page x ${SMALL_SIGNS} at ${SMALL_CONCURRENCY} at a time${WINDOWS > 1 ? ` (window ${w + 1} of ${WINDOWS})` : ''}: ${line}`,
      ),
      '',
    ].join('\n'),
  );
  await bus.drain();
} finally {
  await test.stop();
}
