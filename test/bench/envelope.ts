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
import { mkdtempSync, rmSync } from 'node:fs';
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
import { cpuMs, pidsNamed } from './proc';

const { values: args } = parseArgs({
  options: {
    signers: { type: 'string', default: '10' },
    envelopes: { type: 'string', default: '3' },
    pages: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '10' },
  },
});
const SIGNERS = Number(args.signers);
const ENVELOPES = Number(args.envelopes);
const PAGES = Number(args.pages);

const quantile = (values: number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

const main = async () => {
  process.stdout.write('preparing the document and the stack…\n');
  const pdf = await makeTextPdf(PAGES);
  const mailDir = mkdtempSync(join(tmpdir(), 'esign-bench-mail-'));
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
    },
    // BENCH_PROFILE=<service> writes a V8 CPU profile of that service to .data/profiles when it stops.
    ...(process.env.BENCH_PROFILE
      ? { nodeOptions: { [process.env.BENCH_PROFILE]: ['--cpu-prof', '--cpu-prof-dir=.data/profiles'] } }
      : {}),
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
    const pids = [
      ...Object.values(test.stack.pids()).flatMap((list) => list ?? []),
      ...pidsNamed(/^postgres/),
      ...pidsNamed(/^nats-server/),
    ];
    const stackCpu = () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);

    /** Runs `work`, answering its wall time and the stack's CPU over it (ms). */
    const measure = async (work: () => Promise<void>) => {
      const cpu0 = stackCpu();
      const t0 = performance.now();
      await work();
      const wall = performance.now() - t0;
      // Let the processes' last bookkeeping of this request land before reading their CPU.
      await new Promise((r) => setTimeout(r, 30));
      return { wall, cpu: stackCpu() - cpu0 };
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

    const signs: { wall: number; cpu: number }[] = [];
    const steps: { wall: number; cpu: number }[] = [];
    const growth: number[][] = [];
    const finals: number[] = [];
    for (let e = 0; e < ENVELOPES; e++) {
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
        signs.push(await measure(sign));
        steps.push(
          await measure(async () => {
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
          }),
        );
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
      finals.push((await final.arrayBuffer()).byteLength);
      growth.push(sizes);
      process.stdout.write(`  envelope ${e + 1} of ${ENVELOPES} done\n`);
    }

    const row = (name: string, xs: { wall: number; cpu: number }[]) =>
      `${name.padEnd(34)} ${quantile(
        xs.map((x) => x.wall),
        0.5,
      )
        .toFixed(1)
        .padStart(8)} ${quantile(
        xs.map((x) => x.wall),
        0.95,
      )
        .toFixed(1)
        .padStart(8)} ${quantile(
        xs.map((x) => x.cpu),
        0.5,
      )
        .toFixed(1)
        .padStart(8)} ${quantile(
        xs.map((x) => x.cpu),
        0.95,
      )
        .toFixed(1)
        .padStart(8)}`;
    const stepWall = quantile(
      steps.map((x) => x.wall),
      0.5,
    );
    const signWall = quantile(
      signs.map((x) => x.wall),
      0.5,
    );
    const stepCpu = quantile(
      steps.map((x) => x.cpu),
      0.5,
    );
    const signCpu = quantile(
      signs.map((x) => x.cpu),
      0.5,
    );
    process.stdout.write(
      [
        '',
        `${new Date().toISOString()}, ${PAGES}-page text PDF of ${(pdf.length / 1024).toFixed(0)} KB, ${ENVELOPES} envelope(s) x ${SIGNERS} signers (one per group), one request at a time; TSA ${process.env.BENCH_TSA === 'off' ? 'off' : 'on (local openssl)'}`,
        `${'request'.padEnd(34)} ${'wall p50'.padStart(8)} ${'wall p95'.padStart(8)} ${'cpu p50'.padStart(8)} ${'cpu p95'.padStart(8)}  (ms; cpu: every process of the stack)`,
        row(`POST /api/v1/sign (n=${signs.length})`, signs),
        row(`a signer's step (n=${steps.length})`, steps),
        `step / sign: wall ${(stepWall / signWall).toFixed(2)}x, cpu ${(stepCpu / signCpu).toFixed(2)}x (target <= 1.5x)`,
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
