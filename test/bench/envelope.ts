/**
 * `pnpm bench:envelope`: what one signer's step of an envelope costs through the whole stack, next to a
 * `POST /api/v1/sign` of the same document in the same run, and how the file grows per signer.
 *
 * A stack (key, document-store, pdf-signer, gateway, mailer with an SMTP capture) signs the 20-page text
 * PDF of `bench:peers` (60 lines of Helvetica a page): `--envelopes` envelopes of `--signers` signers, one per group (so they sign one after the
 * other), each with a signature, a date and a text field on their own page. Before each signer's step,
 * the same PDF is signed once through `POST /api/v1/sign` (one signature box), so the two are measured
 * side by side under the same conditions, one request at a time. For both: wall time (client's view)
 * and the CPU of every process of the stack (gateway, document-store, pdf-signer, key, mailer,
 * Postgres, NATS) over the request. A step is `POST /envelope/api/sign` from the signer's link: the head
 * is claimed, the signer's revision appended by pdf-signer, the revision recorded and the next group's
 * turn opened. Growth: the document's size after each signer's revision (its head as the next signer's
 * page reads it), and after the completion (certificate of completion and seal).
 * Target (issue 24): a signer's step costs at most 1.5x a sign; each revision adds about one signature
 * plus the drawn fields, never a copy of the document. Honours BENCH_TSA=off and BENCH_PROFILE=<service>
 * like bench:sign.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { connectBus } from '@esign/bus';
import { KeyCreate } from '@esign/contracts';
import { readMailDirectory, startSmtpCapture } from '@esign/testing';
import { createLogger } from '@esign/telemetry';
import { freePort } from '@esign/stack';
import { startTestStack, type TestStack } from '../support/test-stack';
import { makeTextPdf } from './documents';
import { cpuMs, pidsNamed, postgresBackendsCpuMs, threadCpuMs } from './proc';

const { values: args } = parseArgs({
  options: {
    signers: { type: 'string', default: '10' },
    envelopes: { type: 'string', default: '3' },
    pages: { type: 'string', default: '20' },
    // A stack that has run a while: 50 signings and 5 envelopes (50 steps) before the measured ones,
    // so that both paths run V8's optimised code (with 10 and 1, the steps still ran baseline code on
    // the signer's two workers and cost 1.55-1.66x a sign in CPU; 1.09-1.44x once warm).
    warmup: { type: 'string', default: '50' },
    'warmup-envelopes': { type: 'string', default: '5' },
    settle: { type: 'string', default: '30' },
  },
});
const SIGNERS = Number(args.signers);
const ENVELOPES = Number(args.envelopes);
const PAGES = Number(args.pages);
const SETTLE_MS = Number(args.settle);
const WARMUP_ENVELOPES = Number(args['warmup-envelopes']);

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

const main = async () => {
  process.stdout.write('preparing the document and the stack…\n');
  const pdf = await makeTextPdf(PAGES);
  const mailDir = mkdtempSync(join(tmpdir(), 'esign-bench-mail-'));
  // document-store's SQL statements so far (test/bench/count-sql.ts keeps the count in this file).
  const sqlCountFile = join(mailDir, '..', `esign-bench-sql-${process.pid}`);
  const sqlStatements = (): number => {
    try {
      const bytes = readFileSync(sqlCountFile);
      return bytes.length >= 8 ? bytes.readDoubleLE(0) : 0;
    } catch {
      return 0;
    }
  };
  const profile = (service: string): string[] =>
    process.env.BENCH_PROFILE === service ? ['--cpu-prof', '--cpu-prof-dir=.data/profiles'] : [];
  const smtp = await startSmtpCapture({ directory: mailDir });
  const gatewayPort = await freePort();
  const test: TestStack = await startTestStack({
    label: 'bench_envelope',
    gatewayPort,
    services: ['key', 'document-store', 'pdf-signer', 'gateway', 'mailer'],
    env: { LOG_LEVEL: 'error', RATE_LIMIT_PER_MINUTE: '1000000' },
    serviceEnv: {
      mailer: {
        SMTP_HOST: smtp.host,
        SMTP_PORT: String(smtp.port),
        SMTP_TLS: 'none',
        PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}`,
      },
      'pdf-signer': process.env.BENCH_TSA === 'off' ? { TSA_URLS: '' } : {},
      'document-store': { BENCH_SQL_COUNT_FILE: sqlCountFile },
    },
    // BENCH_PROFILE=<service> writes a V8 CPU profile of that service to .data/profiles when it stops.
    nodeOptions: {
      ...(process.env.BENCH_PROFILE
        ? { [process.env.BENCH_PROFILE]: profile(process.env.BENCH_PROFILE) }
        : {}),
      'document-store': [
        ...profile('document-store'),
        '--import',
        'tsx',
        '--import',
        './test/bench/count-sql.ts',
      ],
    },
  });
  const base = test.stack.gatewayUrl;
  try {
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
    const auth = { Authorization: `Bearer ${apiKey}` };
    // Every process of the stack by name, each with how its CPU so far is read: ms by pid (or thread).
    const each = (pids: readonly number[]) => () => new Map(pids.map((pid) => [pid, cpuMs(pid)]));
    const database = new URL(test.database.url).pathname.slice(1);
    const signerPid = test.stack.pids()['pdf-signer']?.[0] ?? 0;
    const processes: [string, () => Map<number, number>][] = [
      ...Object.entries(test.stack.pids()).map(([name, list]): [string, () => Map<number, number>] => [
        name,
        each(list ?? []),
      ]),
      // The backends of the stack's database (Postgres and NATS may serve other sessions too).
      ['postgres', () => postgresBackendsCpuMs(database)],
      ['nats-server', each(pidsNamed(/^nats-server/))],
      // Last, and counted in its process already: pdf-signer's main thread (NATS, storage, the pool).
      ['signer main thread', () => new Map([[signerPid, threadCpuMs(signerPid).get(signerPid) ?? 0]])],
    ];
    const readCpu = () => processes.map(([, read]) => read());
    /** CPU by process since `before`: a process that ended meanwhile counts nothing, one that started all it used. */
    const cpuSince = (before: Map<number, number>[]) =>
      readCpu().map((now, i) => {
        let ms = 0;
        for (const [pid, used] of now) ms += used - (before[i]?.get(pid) ?? 0);
        return ms;
      });

    // The last entry, the signer's main thread, is counted in its process already.
    const total = (by: number[]) => by.slice(0, -1).reduce((a, b) => a + b, 0);
    /**
     * Runs `work`, answering its wall time (until the answer is read) and the CPU of every process of
     * the stack (ms), in total and by process: `cpuAnswered` from its start until the answer was read,
     * `cpu` until the stack is quiet again (no process of it used CPU for 3 readings 25 ms apart, at
     * least `SETTLE_MS` after the answer, at most 3 s): what the request made the stack do, the work
     * it queued included (the outbox relay, the next recipient's email, key's count of a signed
     * document), and nothing of the request before it.
     */
    const measure = async (work: () => Promise<void>) => {
      const cpu0 = readCpu();
      const sql0 = sqlStatements();
      const t0 = performance.now();
      await work();
      const wall = performance.now() - t0;
      const answered = cpuSince(cpu0);
      const sqlAnswered = sqlStatements() - sql0;
      await new Promise((r) => setTimeout(r, SETTLE_MS));
      let by = cpuSince(cpu0);
      for (let quiet = 0, waited = 0; quiet < 3 && waited < 3_000; waited += 25) {
        await new Promise((r) => setTimeout(r, 25));
        const now = cpuSince(cpu0);
        quiet = total(now) === total(by) ? quiet + 1 : 0;
        by = now;
      }
      return {
        wall,
        cpu: total(by),
        cpuAnswered: total(answered),
        by,
        sql: sqlStatements() - sql0,
        sqlAnswered,
      };
    };

    const sign = async () => {
      const form = new FormData();
      form.append('signerName', 'Bench Signer');
      form.append('signerEmail', 'bench@example.com');
      form.append('mode', 'type');
      form.append('typedName', 'Bench Signer');
      form.append('positions', JSON.stringify([{ x: 10, y: 70, page: 0, width: 25 }]));
      form.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'bench.pdf');
      const res = await fetch(`${base}/api/v1/sign`, { method: 'POST', headers: auth, body: form });
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`sign answered ${res.status}`);
    };

    const mailCache: Parameters<typeof readMailDirectory>[1] = new Map();
    const linkFor = async (email: string): Promise<string> => {
      for (let i = 0; i < 400; i++) {
        const mails = await readMailDirectory(mailDir, mailCache);
        for (const mail of mails) {
          const to = JSON.stringify(mail.parsed.to ?? '');
          const match = /\/e\/([A-Za-z0-9_-]{43})/.exec(String(mail.parsed.text ?? ''));
          if (match?.[1] && to.includes(email)) return match[1];
        }
        await new Promise((r) => setTimeout(r, 50));
      }
      throw new Error(`no link for ${email}`);
    };
    const headSize = async (token: string) => {
      const res = await fetch(`${base}/envelope/api/document`, { headers: { 'X-Signing-Token': token } });
      return (await res.arrayBuffer()).byteLength;
    };

    process.stdout.write(`warming up (${args.warmup} signings)…\n`);
    for (let i = 0; i < Number(args.warmup); i++) await sign();

    type Measured = {
      wall: number;
      cpu: number;
      cpuAnswered: number;
      by: number[];
      /** document-store's SQL statements until the stack was quiet, and until the answer. */
      sql: number;
      sqlAnswered: number;
      last?: boolean;
    };
    const signs: Measured[] = [];
    const steps: Measured[] = [];
    const growth: number[][] = [];
    const finals: number[] = [];
    // Warm-up envelopes first (not measured), as the signings above: a stack that has run a while has
    // compiled the step's code (form filling, the revision) as it has the sign's.
    for (let e = -WARMUP_ENVELOPES; e < ENVELOPES; e++) {
      const measured = e >= 0;
      const run = `${Date.now()}${e}`;
      const recipients = Array.from({ length: SIGNERS }, (_, i) => ({
        name: `Signer ${i + 1}`,
        email: `s${i + 1}-${run}@example.com`,
        role: 'signer',
        order: i + 1,
        fields: [
          { type: 'signature', page: i % PAGES, x: 10, y: 70, width: 25 },
          { type: 'date', page: i % PAGES, x: 60, y: 70, width: 20 },
          { type: 'text', page: i % PAGES, x: 60, y: 75, width: 30 },
        ],
      }));
      const form = new FormData();
      form.append('recipients', JSON.stringify(recipients));
      form.append('file', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'bench.pdf');
      const created = await fetch(`${base}/api/v1/envelopes`, { method: 'POST', headers: auth, body: form });
      if (created.status !== 201)
        throw new Error(`create answered ${created.status}: ${await created.text()}`);
      const { envelopeId } = (await created.json()) as { envelopeId: string };
      const sizes = [pdf.length];
      for (const [i, recipient] of recipients.entries()) {
        const token = await linkFor(recipient.email);
        if (i > 0) sizes.push(await headSize(token));
        const signed = await measure(sign);
        const stepped = await measure(async () => {
          const res = await fetch(`${base}/envelope/api/sign`, {
            method: 'POST',
            headers: { 'X-Signing-Token': token, 'Content-Type': 'application/json' },
            body: JSON.stringify({
              signature: { mode: 'type', typedName: recipient.name, color: '#1e3a8a' },
              values: { '2': `Value of ${recipient.name}` },
            }),
          });
          const body = await res.text();
          if (res.status !== 200) throw new Error(`step answered ${res.status}: ${body}`);
        });
        if (measured) {
          signs.push(signed);
          steps.push({ ...stepped, last: i === recipients.length - 1 });
        }
      }
      // The last revision's size, then the completed document's.
      for (let i = 0; i < 400; i++) {
        const res = await fetch(`${base}/api/v1/envelopes/${envelopeId}`, { headers: auth });
        const envelope = (await res.json()) as { status: string };
        if (envelope.status === 'completed') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const final = await fetch(`${base}/api/v1/envelopes/${envelopeId}/document`, { headers: auth });
      if (final.headers.get('x-complete') !== 'true') throw new Error('the envelope did not complete');
      const finalSize = (await final.arrayBuffer()).byteLength;
      if (!measured) continue;
      finals.push(finalSize);
      growth.push(sizes);
      process.stdout.write(`  envelope ${e + 1} of ${ENVELOPES} done\n`);
    }

    const mean = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const cell = (n: number) => n.toFixed(1).padStart(8);
    const walls = (xs: Measured[]) => xs.map((x) => x.wall);
    const cpus = (xs: Measured[]) => xs.map((x) => x.cpu);
    const row = (name: string, xs: Measured[]) =>
      `${name.padEnd(34)} ${cell(quantile(walls(xs), 0.5))} ${cell(quantile(walls(xs), 0.95))} ${cell(
        quantile(cpus(xs), 0.5),
      )} ${cell(quantile(cpus(xs), 0.95))} ${cell(mean(cpus(xs)))} ${cell(mean(xs.map((x) => x.cpuAnswered)))}`;
    const byProcess = (name: string, xs: Measured[]) =>
      `${name.padEnd(34)} ${processes.map((_, i) => cell(mean(xs.map((x) => x.by[i] ?? 0)))).join(' ')}`;
    const ratio = (f: (xs: Measured[]) => number, of: Measured[] = steps) => (f(of) / f(signs)).toFixed(2);
    // The last signer's step also queues the envelope's completion (the certificate and the seal of the
    // whole envelope, once per envelope): shown apart, so that a signer's own step is seen as well.
    const turns = steps.filter((x) => !x.last);
    process.stdout.write(
      [
        '',
        `${new Date().toISOString()}, ${PAGES}-page text PDF of ${(pdf.length / 1024).toFixed(0)} KB, ${ENVELOPES} envelope(s) x ${SIGNERS} signers (one per group), one request at a time; TSA ${process.env.BENCH_TSA === 'off' ? 'off' : 'on (local openssl)'}`,
        `wall: from sending the request to having read its answer (the client's view). cpu: every process of the stack (Postgres: the stack database's backends) from the request until the stack is quiet again, what the request queued included (the next recipient's email, key's count of a signed document); answered: its mean until the answer was read. /proc counts in 10 ms ticks: the means over n are the figures to compare, the percentiles are coarse.`,
        `${'request'.padEnd(34)} ${'wall p50'.padStart(8)} ${'wall p95'.padStart(8)} ${'cpu p50'.padStart(8)} ${'cpu p95'.padStart(8)} ${'cpu mean'.padStart(8)} ${'answered'.padStart(8)}  (ms)`,
        row(`POST /api/v1/sign (n=${signs.length})`, signs),
        row(`a signer's step (n=${steps.length})`, steps),
        row(
          `  opening the next turn (n=${steps.filter((x) => !x.last).length})`,
          steps.filter((x) => !x.last),
        ),
        row(
          `  the last, queuing the completion (n=${steps.filter((x) => x.last).length})`,
          steps.filter((x) => x.last),
        ),
        `step / sign: wall p50 ${ratio((xs) => quantile(walls(xs), 0.5))}x, cpu p50 ${ratio((xs) => quantile(cpus(xs), 0.5))}x, cpu mean ${ratio((xs) => mean(cpus(xs)))}x, answered ${ratio((xs) => mean(xs.map((x) => x.cpuAnswered)))}x (target <= 1.5x)`,
        `step opening the next turn / sign (the completion left out): wall p50 ${ratio((xs) => quantile(walls(xs), 0.5), turns)}x, cpu mean ${ratio((xs) => mean(cpus(xs)), turns)}x, answered ${ratio((xs) => mean(xs.map((x) => x.cpuAnswered)), turns)}x`,
        '',
        `cpu mean by process (ms)          ${processes.map(([name]) => name.slice(0, 8).padStart(8)).join(' ')}`,
        byProcess('POST /api/v1/sign', signs),
        byProcess("a signer's step", steps),
        '',
        `document-store's SQL statements (mean; until quiet / until answered): sign ${mean(signs.map((x) => x.sql)).toFixed(1)} / ${mean(signs.map((x) => x.sqlAnswered)).toFixed(1)}, step ${mean(steps.map((x) => x.sql)).toFixed(1)} / ${mean(steps.map((x) => x.sqlAnswered)).toFixed(1)}, opening the next turn ${mean(steps.filter((x) => !x.last).map((x) => x.sql)).toFixed(1)}, the last ${mean(steps.filter((x) => x.last).map((x) => x.sql)).toFixed(1)}`,
        '',
        "size (KB): the original, then after each signer but the last (as the next signer's page reads it), then the completed document:",
        ...growth.map(
          (sizes, e) =>
            `  envelope ${e + 1}: ${sizes.map((s) => (s / 1024).toFixed(1)).join(' ')} | completed ${((finals[e] ?? 0) / 1024).toFixed(1)}`,
        ),
        (() => {
          const deltas = growth.flatMap((sizes) => sizes.slice(1).map((s, i) => s - (sizes[i] ?? 0)));
          return `growth per signer: p50 ${(quantile(deltas, 0.5) / 1024).toFixed(1)} KB, max ${(Math.max(...deltas) / 1024).toFixed(1)} KB (the original is ${(pdf.length / 1024).toFixed(1)} KB: a copy would add that much)`;
        })(),
        '',
      ].join('\n'),
    );
  } finally {
    await test.stop();
    await smtp.stop();
    rmSync(mailDir, { recursive: true, force: true });
  }
};

await main();
