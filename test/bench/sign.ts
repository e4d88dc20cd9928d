/**
 * `pnpm bench:sign`: signing through the whole stack (HTTP -> gateway -> NATS -> signer -> storage ->
 * document store -> HTTP) next to the same signing done in-process by the signer's own code.
 * Prints latency p50/p99, requests per second and peak memory, and the ratios the targets are set on.
 * Uses NATS_URL / DATABASE_URL when set (testcontainers otherwise) and the embedded S3-protocol server.
 * `--metrics-compare N` measures instead what metrics cost: CPU per signing with them off and on.
 * `--tsa-delay MS` measures instead what time-stamping costs the stack's throughput: 1-page signings
 * without timestamps, then with a stand-in TSA that answers every request MS ms after it arrived,
 * concurrently (a production TSA's round trip; the local openssl one answers one at a time).
 * `--restart SERVICES` measures instead where a stack just started loses its time: the CPU of every
 * process per signing with the stack just started, warm, and with each of SERVICES restarted alone.
 */
import { Agent, request } from 'node:http';
import { parseArgs } from 'node:util';
import { connectBus } from '@esign/bus';
import { KeyCreate, type TPosition } from '@esign/contracts';
import { createSigner, type Signer } from '@esign/pdf-signer';
import type { ServiceName } from '@esign/stack';
import { startTestStack, type TestStack } from '../support/test-stack';
import { createLogger, startMetrics } from '@esign/telemetry';
import { makeLargePdf, makePdf, makePng, parseSamples, startTestTsa } from '@esign/testing';
import { cpuMs, pidsNamed, rssBytes, threadCpuMs } from './proc';
import { SERVICE_SIGNING } from './service-signing';

const { values: args } = parseArgs({
  options: {
    small: { type: 'string', default: '300' },
    // Requests through the stack before measuring (at the same concurrency): 50 (as many as
    // `bench:floor` gives its bare processes) measures a stack just started, a few thousand one whose
    // V8 has finished optimising (its steady state).
    warmup: { type: 'string', default: '50' },
    large: { type: 'string', default: '8' },
    concurrency: { type: 'string', default: '8' },
    signers: { type: 'string', default: '1' },
    // Before the measurement: N runs of the 1-page requests in a row, each printed with its requests per
    // second and each process's CPU per request (how a stack just started warms up).
    windows: { type: 'string', default: '0' },
    // Instead of the measurement: N rounds of the 1-page requests on two stacks side by side, one with
    // METRICS_EXPORTER=none for every service and one with prometheus (scraped every second, as a
    // Prometheus would), alternating which goes first; prints the stack's CPU per signing for each, with
    // the run-to-run noise, and the difference.
    'metrics-compare': { type: 'string', default: '0' },
    // Instead of the measurement: 1-page signings through a stack without timestamps, then through
    // one whose TSA answers after this many ms (concurrently), at each of --tsa-connections.
    'tsa-delay': { type: 'string' },
    'tsa-connections': { type: 'string', default: '8,32' },
    // Instead of the measurement: where a stack just started loses its time. The CPU of every process
    // per 1-page request with the whole stack just started (after --warmup requests), once warm (after
    // --warm more), then with each of these services stopped and started again alone in the warm stack.
    restart: { type: 'string' },
    warm: { type: 'string', default: '2000' },
  },
});
const SMALL_REQUESTS = Number(args.small);
const LARGE_REQUESTS = Number(args.large);
const CONCURRENCY = Number(args.concurrency);
const SIGNERS = Number(args.signers);
const MB = 1024 * 1024;

interface Result {
  latencies: number[];
  seconds: number;
  peakBytes: number;
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

/** Resident memory of some processes, summed, sampled until stopped; returns the peak above the start. */
const sampleMemory = (read: () => number) => {
  const base = read();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, read())), 5);
  return () => {
    clearInterval(timer);
    peak = Math.max(peak, read());
    return peak - base;
  };
};

const rssOf = (pids: number[]) => () => pids.reduce((sum, pid) => sum + rssBytes(pid), 0);

/** Run `total` calls of `fn`, `concurrency` at a time; time each. */
const run = async (
  total: number,
  concurrency: number,
  fn: () => Promise<void>,
  memory: () => () => number,
): Promise<Result> => {
  const latencies: number[] = [];
  let next = 0;
  const stop = memory();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next += 1;
        const t = performance.now();
        await fn();
        latencies.push(performance.now() - t);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { latencies, seconds, peakBytes: stop() };
};

const multipart = (file: Buffer, fields: Record<string, string>) => {
  const boundary = `----bench${Date.now()}`;
  const parts = Object.entries(fields).map(
    ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
  );
  const body = Buffer.concat([
    Buffer.from(parts.join('')),
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="bench.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    ),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  return { body, contentType: `multipart/form-data; boundary=${boundary}` };
};

// BENCH_SERVICE_ENV='{"document-store":{"DB_POOL_MAX":"4"}}' adds settings to any service's
// environment; BENCH_SIGNER_ENV='{"SIGN_WORKERS":"1"}' is the same for the signer alone.
const parsedServiceEnv = JSON.parse(process.env.BENCH_SERVICE_ENV ?? '{}') as Partial<
  Record<ServiceName, Record<string, string>>
>;
const benchServiceEnv: Partial<Record<ServiceName, Record<string, string>>> = {
  ...parsedServiceEnv,
  'pdf-signer': {
    ...parsedServiceEnv['pdf-signer'],
    ...(JSON.parse(process.env.BENCH_SIGNER_ENV ?? '{}') as Record<string, string>),
  },
};

/** CPU per request of each thread of `pid` since `before` (its `threadCpuMs`): `main`, then the others. */
const threadCpuSince = (pid: number, before: Map<number, number>, { offsets = false } = {}): string[] =>
  [...threadCpuMs(pid)]
    .map(([tid, ms]) => ({ tid, ms: (ms - (before.get(tid) ?? 0)) / SMALL_REQUESTS }))
    .filter(({ ms }) => ms > 0)
    .map(({ tid, ms }) => `${tid === pid ? 'main' : offsets ? tid - pid : tid} ${ms.toFixed(2)}`);

/**
 * BENCH_TRACE_OPT=<service,...>: those services run with V8's --trace-opt and --trace-deopt, and
 * `--restart` prints, for each window measured, how many functions each finished optimising and how
 * often optimised code was thrown away (what V8 still compiles while requests run). Approximate at a
 * window's edges: a service writes V8's trace to its pipe in blocks of a few KB.
 */
const traced = new Set((process.env.BENCH_TRACE_OPT ?? '').split(',').filter(Boolean));
const v8Events = new Map<string, { optimized: number; deoptimized: number }>();
const countV8Event = (service: string, line: string) => {
  const counts = v8Events.get(service) ?? { optimized: 0, deoptimized: 0 };
  if (line.includes('[completed optimizing')) counts.optimized += 1;
  else if (line.includes('[bailout (kind:')) counts.deoptimized += 1;
  v8Events.set(service, counts);
};

/** The stack the benchmark measures (key, document-store, signer(s), gateway), with `env` for every service. */

const benchStackOptions = (
  label: string,
  env: Record<string, string> = {},
  signerEnv: Record<string, string> = {},
) => ({
  label,
  ...(traced.size > 0 ? { onLine: countV8Event } : {}),
  env: { LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '1000000', ...env },
  services: ['key', 'document-store', 'pdf-signer', 'gateway'] satisfies ServiceName[],
  replicas: { 'pdf-signer': SIGNERS },
  // BENCH_TSA=off signs without RFC 3161 timestamps: the local openssl TSA answers one request at a
  // time (one openssl process each), which caps the stack's throughput far below a real TSA's.
  serviceEnv: {
    ...benchServiceEnv,
    'pdf-signer': {
      // The service's own warm-up (its default, 3 s), not the test stacks' short one: a stack "just
      // started" here is one as a deployment starts it.
      SIGN_WARM_UP_MS: '3000',
      ...(process.env.BENCH_TSA === 'off' ? { TSA_URLS: '' } : {}),
      ...benchServiceEnv['pdf-signer'],
      ...signerEnv,
    },
  },
  // BENCH_PROFILE=<service> writes a V8 CPU profile of that service to .data/profiles when it stops;
  // BENCH_NODE_FLAGS='{"gateway":["--max-semi-space-size=8"]}' gives services Node's or V8's flags.
  nodeOptions: {
    ...(JSON.parse(process.env.BENCH_NODE_FLAGS ?? '{}') as Partial<Record<ServiceName, string[]>>),
    ...Object.fromEntries([...traced].map((service) => [service, ['--trace-opt', '--trace-deopt']])),
    ...(process.env.BENCH_PROFILE
      ? { [process.env.BENCH_PROFILE]: ['--cpu-prof', '--cpu-prof-dir=.data/profiles'] }
      : {}),
  },
});

/** A poster of one prepared multipart form to POST /api/v1/sign over a keep-alive agent. */
const signingPoster =
  (gatewayUrl: string, apiKey: string, agent: Agent) => (form: { body: Buffer; contentType: string }) => () =>
    new Promise<void>((resolve, reject) => {
      const url = new URL(`${gatewayUrl}/api/v1/sign`);
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          path: url.pathname,
          method: 'POST',
          agent,
          headers: {
            Authorization: `Bearer ${apiKey}`,
            'Content-Type': form.contentType,
            'Content-Length': form.body.length,
          },
        },
        (res) => {
          res.on('data', () => undefined);
          res.on('end', () =>
            res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
          );
        },
      );
      req.on('error', reject);
      req.end(form.body);
    });

/** A Business key on a stack, made over the bus as an operator would. */
const benchKey = async (test: TestStack): Promise<string> => {
  const bus = await connectBus({
    url: test.natsUrl,
    name: 'bench',
    prefix: test.busPrefix,
    logger: createLogger({ service: 'bench', level: 'error' }),
    timeoutMs: 10_000,
  });
  const { apiKey } = await bus.request(KeyCreate, {
    email: `bench${Date.now()}@example.com`,
    plan: 'business',
  });
  await bus.drain();
  return apiKey;
};

const main = async () => {
  process.stdout.write('preparing fixtures and the stack…\n');
  const small = await makePdf({ pages: 1 });
  const large = await makeLargePdf(20 * MB);
  const png = await makePng({ width: 300, height: 100 });
  const positions: TPosition[] = [{ x: 50, y: 85, page: 0, width: 25 }];
  const signer = {
    name: 'Bench Signer',
    email: 'bench@example.com',
    ipAddress: '127.0.0.1',
    userAgent: 'bench',
  };

  // In-process: the signer's own code, warmed up, signing as the service does with its defaults.
  const inProcess = await createSigner();
  const signWith = (using: Signer, bytes: Buffer) =>
    using.sign({
      bytes,
      kind: 'pdf',
      fileName: 'bench.pdf',
      signature: { mode: 'draw', imageBase64: png.toString('base64') },
      positions,
      signer,
      receivedAt: new Date().toISOString(),
      ...SERVICE_SIGNING,
    });
  const signLocal = (bytes: Buffer) => async () => {
    await signWith(inProcess, bytes);
  };
  const selfRss = () => () => process.memoryUsage().rss;
  for (let i = 0; i < 20; i++) await signLocal(small)();
  await signLocal(large)();

  // The whole stack.
  const test = await startTestStack(benchStackOptions('bench'));
  const { stack } = test;
  try {
    const apiKey = await benchKey(test);
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const fields = {
      signerName: signer.name,
      signerEmail: signer.email,
      signatureData: `data:image/png;base64,${png.toString('base64')}`,
      positions: JSON.stringify(positions),
    };
    const post = signingPoster(stack.gatewayUrl, apiKey, agent);
    const smallForm = multipart(small, fields);
    const largeForm = multipart(large, fields);
    const pids = Object.values(stack.pids()).flatMap((list) => list ?? []);
    const stackRss = () => sampleMemory(rssOf(pids));
    // The same peak, process by process (each peak on its own: they need not coincide).
    const perService = Object.entries(stack.pids()).map(([name, list]) => ({ name, pids: list ?? [] }));
    const stackRssByService = () => {
      const stops = perService.map(({ name, pids: group }) => ({ name, stop: sampleMemory(rssOf(group)) }));
      const stopAll = sampleMemory(rssOf(pids));
      return () => {
        largePeaks = stops.map(({ name, stop }) => ({ name, bytes: stop() }));
        return stopAll();
      };
    };
    let largePeaks: { name: string; bytes: number }[] = [];
    await run(
      Number(args.warmup),
      Math.min(CONCURRENCY, Number(args.warmup)),
      post(smallForm),
      () => () => 0,
    );
    await post(largeForm)();

    const cpuGroups: [string, number[]][] = [
      ...Object.entries(stack.pids()).map(([name, list]): [string, number[]] => [name, list ?? []]),
      ['postgres', pidsNamed(/^postgres/)],
      ['nats-server', pidsNamed(/^nats-server/)],
      ['client + S3 server', [process.pid]],
    ];
    const cpuNow = () => cpuGroups.map(([, group]) => group.reduce((t, pid) => t + cpuMs(pid), 0));
    const cpuSince = (before: number[]) => {
      const now = cpuNow();
      return cpuGroups.map(([name], i) => ({
        name,
        ms: ((now[i] ?? 0) - (before[i] ?? 0)) / SMALL_REQUESTS,
      }));
    };
    for (let w = 1; w <= Number(args.windows); w++) {
      const before = cpuNow();
      const window = await run(SMALL_REQUESTS, CONCURRENCY, post(smallForm), () => () => 0);
      process.stdout.write(
        `window ${w}: ${(SMALL_REQUESTS / window.seconds).toFixed(1)} req/s; CPU per request (ms): ${cpuSince(
          before,
        )
          .map(({ name, ms }) => `${name} ${ms.toFixed(2)}`)
          .join(', ')}\n`,
      );
    }

    process.stdout.write(
      `measuring (1 page x ${SMALL_REQUESTS} at ${CONCURRENCY} connections, 20 MB x ${LARGE_REQUESTS} one at a time, ${SIGNERS} signer process(es))…\n`,
    );
    const cpuStart = process.cpuUsage();
    const localSmall = await run(SMALL_REQUESTS, CONCURRENCY, signLocal(small), () =>
      sampleMemory(selfRss()),
    );
    const cpuLocal = process.cpuUsage(cpuStart);
    const localCpuMs = (cpuLocal.user + cpuLocal.system) / 1000 / SMALL_REQUESTS;
    const cpuBefore = cpuNow();
    const signerPid = stack.pids()['pdf-signer']?.[0] ?? 0;
    const signerThreadsBefore = threadCpuMs(signerPid);
    const stackSmall = await run(SMALL_REQUESTS, CONCURRENCY, post(smallForm), stackRss);
    const cpuPerRequest = cpuSince(cpuBefore).map(
      ({ name, ms }) => `  ${name.padEnd(20)} ${ms.toFixed(2).padStart(7)} ms`,
    );
    // The first signer's threads: its main thread (NATS, storage, the hand-off to the workers), then,
    // in the order they started, V8's platform threads, the signing workers and libuv's pool.
    const signerThreads = threadCpuSince(signerPid, signerThreadsBefore);
    const localLarge = await run(LARGE_REQUESTS, 1, signLocal(large), () => sampleMemory(selfRss()));
    const stackLarge = await run(LARGE_REQUESTS, 1, post(largeForm), stackRssByService);
    // The TSA round trip the stack's signer makes per signature (to the stack's local openssl TSA):
    // not overlapped with anything, so it is part of the full-stack latencies above.
    const stamping = await createSigner({
      warn: () => undefined,
      timestamps: { urls: [test.tsa.url], timeoutMs: 5_000, maxTokenBytes: 12_288 },
    });
    const tsaMs: number[] = [];
    for (let i = 0; i < 30; i++) tsaMs.push((await signWith(stamping, small)).timestamp?.tsaMs ?? NaN);

    const row = (name: string, r: Result, total: number) =>
      `${name.padEnd(34)} ${quantile(r.latencies, 0.5).toFixed(1).padStart(8)} ${quantile(r.latencies, 0.99).toFixed(1).padStart(8)} ${(total / r.seconds).toFixed(1).padStart(8)} ${(r.peakBytes / MB).toFixed(1).padStart(10)}`;
    const lines = [
      '',
      `${'scenario'.padEnd(34)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'req/s'.padStart(8)} ${'peak +MB'.padStart(10)}`,
      row(`1 page, in-process (c=${CONCURRENCY})`, localSmall, SMALL_REQUESTS),
      row(`1 page, full stack (c=${CONCURRENCY})`, stackSmall, SMALL_REQUESTS),
      row(`${(large.length / MB).toFixed(1)} MB, in-process (c=1)`, localLarge, LARGE_REQUESTS),
      row(`${(large.length / MB).toFixed(1)} MB, full stack (c=1)`, stackLarge, LARGE_REQUESTS),
      '',
      `1 page throughput, full stack / in-process: ${((stackSmall.seconds ? SMALL_REQUESTS / stackSmall.seconds : 0) / (SMALL_REQUESTS / localSmall.seconds)).toFixed(2)} (target >= 0.90)`,
      `20 MB p50, full stack / in-process:         ${(quantile(stackLarge.latencies, 0.5) / quantile(localLarge.latencies, 0.5)).toFixed(2)} (target <= 2.00)`,
      `20 MB peak memory per request / file size:  full stack ${(stackLarge.peakBytes / large.length).toFixed(2)}, in-process ${(localLarge.peakBytes / large.length).toFixed(2)} (target < 8)`,
      `  by process (each its own peak): ${largePeaks.map(({ name, bytes }) => `${name} ${(bytes / large.length).toFixed(2)}`).join(', ')}`,
      '',
      `TSA round trip per signature (local openssl TSA, 30 one at a time): p50 ${quantile(tsaMs, 0.5).toFixed(0)} ms, max ${Math.max(...tsaMs).toFixed(0)} ms`,
      `CPU per 1-page request in-process (all threads, no timestamp): ${localCpuMs.toFixed(2)} ms`,
      'CPU per 1-page request through the stack, by process:',
      ...cpuPerRequest,
      `  pdf-signer by thread: ${signerThreads.join(', ')}`,
      '',
    ];
    process.stdout.write(lines.join('\n'));
    agent.destroy();
  } finally {
    await test.stop();
  }
};

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
/** Sample standard deviation (0 for one value). */
const stdev = (values: number[]) => {
  if (values.length < 2) return 0;
  const m = mean(values);
  return Math.sqrt(values.reduce((sum, v) => sum + (v - m) ** 2, 0) / (values.length - 1));
};

/** A 1-page signing request with a drawn signature, as the comparisons send it. */
const smallSignForm = async () => {
  const png = await makePng({ width: 300, height: 100 });
  return multipart(await makePdf({ pages: 1 }), {
    signerName: 'Bench Signer',
    signerEmail: 'bench@example.com',
    signatureData: `data:image/png;base64,${png.toString('base64')}`,
    positions: JSON.stringify([{ x: 50, y: 85, page: 0, width: 25 }]),
  });
};

/**
 * `--metrics-compare N`: what metrics cost per signing. Two stacks run side by side, the same but for
 * METRICS_EXPORTER (`none` in every service, or `prometheus` with every process scraped once a second,
 * as a Prometheus would); N rounds of SMALL_REQUESTS 1-page signings on each, alternating which goes
 * first so that a drift of the machine falls on both. The figure is the CPU of the stack's processes
 * per signing (from /proc: every thread), compared round by round.
 */
const compareMetrics = async (rounds: number) => {
  process.stdout.write('preparing fixtures and two stacks (metrics off, metrics on)…\n');
  const form = await smallSignForm();
  const modes = ['none', 'prometheus'] as const;
  type Mode = (typeof modes)[number];
  const stacks = new Map<Mode, TestStack>();
  const scrapers: NodeJS.Timeout[] = [];
  try {
    for (const mode of modes) {
      stacks.set(mode, await startTestStack(benchStackOptions(`bench_${mode}`, { METRICS_EXPORTER: mode })));
    }
    const sides = await Promise.all(
      modes.map(async (mode) => {
        const test = stacks.get(mode);
        if (!test) throw new Error(`no stack for ${mode}`);
        const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
        const post = signingPoster(test.stack.gatewayUrl, await benchKey(test), agent)(form);
        const pids = Object.values(test.stack.pids()).flatMap((list) => list ?? []);
        const urls = Object.values(test.stack.metricsUrls()).flatMap((list) => list ?? []);
        return { mode, test, agent, post, pids, urls, cpuMs: [] as number[], rates: [] as number[] };
      }),
    );
    // Each stack is what it claims: /metrics answers 404 with metrics off, the text format with them on.
    for (const side of sides) {
      const status = (await fetch(side.urls[0] ?? '')).status;
      if (status !== (side.mode === 'none' ? 404 : 200)) {
        throw new Error(`METRICS_EXPORTER=${side.mode}: /metrics answered ${status}`);
      }
    }
    const on = sides.find((side) => side.mode === 'prometheus');
    if (on) {
      const scrapeAll = () =>
        Promise.all(on.urls.map((url) => fetch(url).then((res) => res.text()))).then(() => undefined);
      await scrapeAll();
      // The scrapes are part of what metrics cost: once a second, for the whole run.
      scrapers.push(setInterval(() => void scrapeAll().catch(() => undefined), 1000));
    }
    for (const side of sides) {
      await run(Number(args.warmup), Math.min(CONCURRENCY, Number(args.warmup)), side.post, () => () => 0);
    }
    const stackCpuMs = (pids: number[]) => pids.reduce((total, pid) => total + cpuMs(pid), 0);
    for (let round = 1; round <= rounds; round++) {
      const order = round % 2 === 1 ? sides : [...sides].reverse();
      const figures: string[] = [];
      for (const side of order) {
        const before = stackCpuMs(side.pids);
        const result = await run(SMALL_REQUESTS, CONCURRENCY, side.post, () => () => 0);
        const perSigning = (stackCpuMs(side.pids) - before) / SMALL_REQUESTS;
        side.cpuMs.push(perSigning);
        side.rates.push(SMALL_REQUESTS / result.seconds);
        figures.push(
          `metrics ${side.mode === 'none' ? 'off' : 'on '} ${perSigning.toFixed(2)} ms CPU/signing, ${(SMALL_REQUESTS / result.seconds).toFixed(1)} signings/s`,
        );
      }
      process.stdout.write(`round ${round}/${rounds}: ${figures.join('; ')}\n`);
    }
    const [off, onSide] = sides;
    if (!off || !onSide) return;
    const differences = onSide.cpuMs.map(
      (ms, i) => ((ms - (off.cpuMs[i] ?? ms)) / (off.cpuMs[i] ?? ms)) * 100,
    );
    const describe = (side: (typeof sides)[number]) =>
      `${mean(side.cpuMs).toFixed(2)} ms ± ${stdev(side.cpuMs).toFixed(2)} (${((stdev(side.cpuMs) / mean(side.cpuMs)) * 100).toFixed(1)}% run to run; min ${Math.min(...side.cpuMs).toFixed(2)}, max ${Math.max(...side.cpuMs).toFixed(2)}), ${mean(side.rates).toFixed(1)} signings/s`;
    process.stdout.write(
      [
        '',
        `CPU of the stack's processes per 1-page signing (${rounds} rounds x ${SMALL_REQUESTS} at ${CONCURRENCY} connections, ${SIGNERS} signer process(es), TSA ${process.env.BENCH_TSA === 'off' ? 'off' : 'on'}):`,
        `  metrics off (METRICS_EXPORTER=none):       ${describe(off)}`,
        `  metrics on  (prometheus, scraped each 1 s): ${describe(onSide)}`,
        `  on vs off, round by round: ${mean(differences) >= 0 ? '+' : ''}${mean(differences).toFixed(1)}% ± ${stdev(differences).toFixed(1)} (target <= 2%)`,
        '',
      ].join('\n'),
    );
    await accountMetricsCost(onSide, Number(args.warmup) + rounds * SMALL_REQUESTS, mean(off.cpuMs));
    for (const side of sides) side.agent.destroy();
  } finally {
    for (const timer of scrapers) clearInterval(timer);
    for (const test of stacks.values()) await test.stop();
  }
};

/**
 * What metrics cost, accounted rather than compared (the round-by-round comparison drowns a 2% in the
 * machine's noise): the measurements the stack recorded per signing (every histogram's count and
 * counter's increments, read from its /metrics, plus the edge's four in-flight adds) times the CPU
 * of one measurement (timed here, in this process, on the same SDK), and the CPU one scrape of every
 * process costs, spread over the signings between two scrapes.
 */
const accountMetricsCost = async (
  on: { urls: string[]; pids: number[]; rates: number[] },
  signings: number,
  cpuPerSigningMs: number,
) => {
  const scrapeAll = () => Promise.all(on.urls.map((url) => fetch(url).then((res) => res.text())));
  let recorded = 0;
  for (const text of await scrapeAll()) {
    for (const sample of parseSamples(text)) {
      // Histograms by their count; counters by what was added (process CPU is read, not recorded).
      if (
        sample.name.endsWith('_count') ||
        (sample.name.endsWith('_total') && !sample.name.startsWith('process_'))
      ) {
        recorded += sample.value;
      }
    }
  }
  const perSigning = recorded / signings + 4;
  // One measurement: a histogram record with three labels, over a spread of label values.
  const probe = await startMetrics({ service: 'gateway', exporter: 'prometheus' });
  const histogram = probe.histogram('httpRequestDuration');
  const labels = Array.from({ length: 24 }, (_, i) => ({
    'http.request.method': i % 2 ? 'GET' : 'POST',
    'http.route': `/api/v1/route${i % 12}`,
    'http.response.status_class': `${2 + (i % 3)}xx`,
  }));
  const records = 500_000;
  for (let i = 0; i < 50_000; i++) histogram.record(i / 1e5, labels[i % labels.length]);
  const started = process.cpuUsage();
  for (let i = 0; i < records; i++) histogram.record(i / 1e6, labels[i % labels.length]);
  const used = process.cpuUsage(started);
  await probe.shutdown();
  const perRecordUs = (used.user + used.system) / records;
  // One scrape of every process: the stack's CPU over 50 scrapes in a row (the stack idle otherwise).
  const scrapes = 50;
  const stackCpu = () => on.pids.reduce((total, pid) => total + cpuMs(pid), 0);
  const before = stackCpu();
  for (let i = 0; i < scrapes; i++) await scrapeAll();
  const perScrapeMs = (stackCpu() - before) / scrapes;
  const rate = mean(on.rates);
  const recordingMs = (perSigning * perRecordUs) / 1000;
  const share = (ms: number) => `${((ms / cpuPerSigningMs) * 100).toFixed(2)}%`;
  process.stdout.write(
    [
      'Accounted (independent of the run-to-run noise):',
      `  ${perSigning.toFixed(1)} measurements per signing x ${perRecordUs.toFixed(2)} µs each = ${recordingMs.toFixed(3)} ms, ${share(recordingMs)} of a signing's CPU`,
      `  one scrape of all ${on.urls.length} processes: ${perScrapeMs.toFixed(2)} ms of CPU; per signing at ${rate.toFixed(0)} signings/s: ${share(perScrapeMs / rate)} scraped every 1 s (this bench), ${share(perScrapeMs / (rate * 15))} every 15 s (compose's Prometheus; the chart's ServiceMonitor: 30 s)`,
      `  together, scraped every 15 s: ${share(recordingMs + perScrapeMs / (rate * 15))} (target <= 2%)`,
      '',
    ].join('\n'),
  );
};

/**
 * `--tsa-delay MS`: what time-stamping costs the stack's throughput. 1-page signings through a stack
 * whose signer timestamps nothing, then through one whose TSA (a stand-in in this process, see
 * `startTestTsa({ delayMs })`) answers every request MS ms after it arrived, all concurrently, as a
 * production TSA would; at each of --tsa-connections, with the ratio. Also printed: the most any
 * stack could do with c connections when each signing waits MS ms (Little's law: c / (MS + the
 * signing's latency alone)), since at few connections the client's own concurrency is the limit.
 */
const compareTsa = async (delayMs: number) => {
  const connections = args['tsa-connections'].split(',').map(Number);
  process.stdout.write(`preparing fixtures and a TSA answering after ${delayMs} ms…\n`);
  const form = await smallSignForm();
  const tsa = await startTestTsa({ delayMs });
  type Side = { name: string; rates: Map<number, Result>; cpuMs: Map<number, number>; aloneMs: number };
  const sides: Side[] = [];
  try {
    for (const [name, tsaUrls] of [
      ['without timestamps', ''],
      [`TSA after ${delayMs} ms`, tsa.url],
    ] as const) {
      const test = await startTestStack(
        benchStackOptions(`bench_tsa${tsaUrls ? 'on' : 'off'}`, {}, { TSA_URLS: tsaUrls }),
      );
      try {
        const agent = new Agent({ keepAlive: true, maxSockets: Math.max(...connections) });
        const post = signingPoster(test.stack.gatewayUrl, await benchKey(test), agent)(form);
        const pids = Object.values(test.stack.pids()).flatMap((list) => list ?? []);
        const stackCpu = () => pids.reduce((total, pid) => total + cpuMs(pid), 0);
        await run(Number(args.warmup), Math.min(8, Number(args.warmup)), post, () => () => 0);
        const alone = await run(20, 1, post, () => () => 0);
        const side: Side = {
          name,
          rates: new Map(),
          cpuMs: new Map(),
          aloneMs: quantile(alone.latencies, 0.5),
        };
        for (const c of connections) {
          const before = stackCpu();
          side.rates.set(c, await run(SMALL_REQUESTS, c, post, () => () => 0));
          side.cpuMs.set(c, (stackCpu() - before) / SMALL_REQUESTS);
        }
        sides.push(side);
        agent.destroy();
      } finally {
        await test.stop();
      }
    }
  } finally {
    await tsa.stop();
  }
  const [off, on] = sides;
  if (!off || !on) return;
  const rate = (r: Result | undefined) => (r ? SMALL_REQUESTS / r.seconds : NaN);
  const lines = [
    '',
    `1-page signings through the stack (${SMALL_REQUESTS} per row, ${SIGNERS} signer process(es), PADES_LEVEL default), without timestamps and with a TSA answering after ${delayMs} ms:`,
    `${'connections'.padEnd(12)} ${'without: req/s'.padStart(15)} ${'p50 ms'.padStart(8)} ${'CPU ms'.padStart(7)}   ${'with TSA: req/s'.padStart(15)} ${'p50 ms'.padStart(8)} ${'CPU ms'.padStart(7)}   ${'ratio'.padStart(6)}   ${'ceiling req/s'.padStart(13)}`,
    ...connections.map((c) => {
      const a = off.rates.get(c);
      const b = on.rates.get(c);
      // The most c connections can carry when each signing waits delayMs on top of its own latency.
      const ceiling = c / ((delayMs + off.aloneMs) / 1000);
      return `${String(c).padEnd(12)} ${rate(a).toFixed(1).padStart(15)} ${quantile(a?.latencies ?? [], 0.5)
        .toFixed(1)
        .padStart(
          8,
        )} ${(off.cpuMs.get(c) ?? NaN).toFixed(2).padStart(7)}   ${rate(b).toFixed(1).padStart(15)} ${quantile(
        b?.latencies ?? [],
        0.5,
      )
        .toFixed(1)
        .padStart(
          8,
        )} ${(on.cpuMs.get(c) ?? NaN).toFixed(2).padStart(7)}   ${(rate(b) / rate(a)).toFixed(2).padStart(6)}   ${ceiling.toFixed(1).padStart(13)}`;
    }),
    `one signing alone (c=1, p50): ${off.aloneMs.toFixed(1)} ms without timestamps, ${on.aloneMs.toFixed(1)} ms with the TSA`,
    `ceiling: c / (${delayMs} ms + ${off.aloneMs.toFixed(1)} ms), what c connections carry at most when each signing waits ${delayMs} ms (Little's law); CPU ms: the stack's processes' CPU per signing`,
    '',
  ];
  process.stdout.write(lines.join('\n'));
};

/**
 * `--restart <services>`: where a stack just started loses its time, process by process. One stack;
 * SMALL_REQUESTS 1-page signings measured (CPU of every process from /proc, per request, and the first
 * signer's by thread) after --warmup requests (all just started), after --warm more (all warm), then,
 * for each service named, after it was stopped and started again and given --warmup requests while
 * the others stay warm: what that one service's coldness costs, and what a stack just started costs
 * beyond the sum of its services' (a slower stack, whose every message costs more).
 */
const compareRestarts = async (services: ServiceName[]) => {
  process.stdout.write('preparing fixtures and the stack…\n');
  const form = await smallSignForm();
  const test = await startTestStack(benchStackOptions('bench_restart'));
  try {
    const unknown = services.filter((service) => !(service in test.stack.pids()));
    if (unknown.length > 0) throw new Error(`--restart: not in the benchmark's stack: ${unknown.join(', ')}`);
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const post = signingPoster(test.stack.gatewayUrl, await benchKey(test), agent)(form);
    const warmUp = () =>
      run(Number(args.warmup), Math.min(CONCURRENCY, Number(args.warmup)), post, () => () => 0);
    const groups = (): [string, number[]][] => [
      ...Object.entries(test.stack.pids()).map(([name, list]): [string, number[]] => [name, list ?? []]),
      ['postgres', pidsNamed(/^postgres/)],
      ['nats-server', pidsNamed(/^nats-server/)],
      ['client + S3 server', [process.pid]],
    ];
    const measure = async (label: string) => {
      // Read afresh each time: a restarted service has new process ids (and Postgres new backends).
      const cpuGroups = groups();
      const before = cpuGroups.map(([, pids]) => pids.reduce((t, pid) => t + cpuMs(pid), 0));
      const signerPid = test.stack.pids()['pdf-signer']?.[0] ?? 0;
      const threadsBefore = threadCpuMs(signerPid);
      const gatewayPid = test.stack.pids().gateway?.[0] ?? 0;
      const gatewayBefore = threadCpuMs(gatewayPid);
      const eventsBefore = new Map([...v8Events].map(([service, counts]) => [service, { ...counts }]));
      const result = await run(SMALL_REQUESTS, CONCURRENCY, post, () => () => 0);
      const compiled = [...traced].map((service) => {
        const now = v8Events.get(service) ?? { optimized: 0, deoptimized: 0 };
        const then = eventsBefore.get(service) ?? { optimized: 0, deoptimized: 0 };
        return `${service} optimised ${now.optimized - then.optimized}, deoptimised ${now.deoptimized - then.deoptimized}`;
      });
      const gatewayThreads = threadCpuSince(gatewayPid, gatewayBefore, { offsets: true });
      const perRequest = cpuGroups.map(
        ([name, pids], i) =>
          [name, (pids.reduce((t, pid) => t + cpuMs(pid), 0) - (before[i] ?? 0)) / SMALL_REQUESTS] as const,
      );
      const total = perRequest.reduce((sum, [, ms]) => sum + ms, 0);
      const threads = threadCpuSince(signerPid, threadsBefore, { offsets: true });
      process.stdout.write(
        `${label.padEnd(34)} ${(SMALL_REQUESTS / result.seconds).toFixed(1).padStart(7)} req/s, CPU per request ${total.toFixed(2)} ms: ${perRequest.map(([name, ms]) => `${name} ${ms.toFixed(2)}`).join(', ')}\n${''.padEnd(36)}pdf-signer by thread (main, then others by their id's offset from it): ${threads.join(', ')}\n${''.padEnd(36)}gateway by thread: ${gatewayThreads.join(', ')}\n${compiled.length > 0 ? `${''.padEnd(36)}V8 during the window: ${compiled.join('; ')}\n` : ''}`,
      );
    };
    await warmUp();
    await measure(`all just started (${args.warmup})`);
    await run(Number(args.warm), CONCURRENCY, post, () => () => 0);
    await measure(`all warm (+${args.warm})`);
    for (const service of services) {
      await test.stack.stopService(service);
      await test.stack.startService(service);
      await warmUp();
      await measure(`${service} restarted (${args.warmup})`);
    }
    agent.destroy();
  } finally {
    await test.stop();
  }
};

if (args.restart !== undefined) await compareRestarts(args.restart.split(',') as ServiceName[]);
else if (args['tsa-delay'] !== undefined) await compareTsa(Number(args['tsa-delay']));
else if (Number(args['metrics-compare']) > 0) await compareMetrics(Number(args['metrics-compare']));
else await main();
