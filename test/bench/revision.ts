/**
 * `pnpm bench:revision`: an envelope signer's revision in-process (`signer.envelopes.signRevision`,
 * exactly what the `pdf.sign-revision` handler runs on a signing worker), next to `signer.sign` of the
 * same document in the same process, one call at a time: CPU (`process.cpuUsage`, every thread of this
 * process) and wall time per call, and per revision number (the document grows by one signature each).
 *
 * The workload is `bench:envelope`'s: the 20-page text PDF of `bench:peers`, envelopes of `--signers`
 * signers, one per group, each with a signature, a date and a text field on their own page; revision 0
 * is made by `prepareEnvelope` (not measured), then each signer's revision is appended to the last one.
 * Before each revision the original PDF is signed once with one signature box (`pdf.sign`'s work).
 * PAdES B-LT, as the service's default; no TSA unless `--tsa` (then the stand-in TSA answers in this
 * process, about 0.3 ms of CPU a token, counted in both columns). `--profile <file.cpuprofile>`: a V8
 * CPU profile of the measured envelopes' revisions (main thread, sampled every 0.1 ms; the signings in
 * between are then left out), summed up.
 * `--out <dir>`: the last envelope's revisions written there (to check them with pdfsig and qpdf).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createSigner } from '@esign/pdf-signer';
import type { TEnvelopeField } from '@esign/contracts';
import { startTestTsa } from '@esign/testing';
import { makeTextPdf } from './documents';
import { startCpuProfile, summariseProfile } from './profile-summary';
import type { RunningProfile } from './profile-summary';
import { SERVICE_SIGNING } from './service-signing';

const { values: args } = parseArgs({
  options: {
    signers: { type: 'string', default: '10' },
    envelopes: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '5' },
    pages: { type: 'string', default: '20' },
    tsa: { type: 'boolean', default: false },
    profile: { type: 'string' },
    out: { type: 'string' },
  },
});
const SIGNERS = Number(args.signers);
const ENVELOPES = Number(args.envelopes);
const WARMUP = Number(args.warmup);
const PAGES = Number(args.pages);

const quantile = (values: readonly number[], q: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

/** Runs `work`, answering the process's CPU and the wall time over it (ms). */
const measure = async <T>(work: () => Promise<T>): Promise<{ cpu: number; wall: number; result: T }> => {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const result = await work();
  const wall = performance.now() - t0;
  const used = process.cpuUsage(cpu0);
  return { cpu: (used.user + used.system) / 1000, wall, result };
};

const main = async () => {
  const pdf = await makeTextPdf(PAGES);
  const tsa = args.tsa ? await startTestTsa({ delayMs: 0 }) : undefined;
  const signer = await createSigner({
    warn: () => undefined,
    ...(tsa ? { timestamps: { urls: [tsa.url], timeoutMs: 10_000, maxTokenBytes: 12_288 } } : {}),
  });
  const person = (i: number) => ({
    name: `Signer ${i + 1}`,
    email: `s${i + 1}@example.com`,
    ipAddress: '127.0.0.1',
    userAgent: 'bench',
  });
  // As document-store stores them (heights defaulted) and the gateway sends them back.
  const fieldsOf = (i: number): TEnvelopeField[] => [
    { type: 'signature', page: i % PAGES, x: 10, y: 70, width: 25, height: 25 / 3, required: true },
    { type: 'date', page: i % PAGES, x: 60, y: 70, width: 20, height: 3, required: true },
    { type: 'text', page: i % PAGES, x: 60, y: 75, width: 30, height: 3, required: true },
  ];

  const sign = () =>
    signer.sign({
      bytes: pdf,
      kind: 'pdf',
      fileName: 'bench.pdf',
      signature: { mode: 'type', typedName: 'Bench Signer', color: '#1e3a8a' },
      positions: [{ x: 10, y: 70, page: 0, width: 25 }],
      signer: person(99),
      receivedAt: new Date().toISOString(),
      ...SERVICE_SIGNING,
    });

  let profiler: RunningProfile | undefined;
  const envelope = async (e: number, onRevision?: (i: number, file: Buffer) => void) => {
    const prepared = await signer.envelopes.prepareEnvelope({
      bytes: pdf,
      auditId: `A${String(e).padStart(11, '0')}`,
      envelopeId: `env_bench${e}`,
      fileName: 'bench.pdf',
      subject: 'Bench',
      senderEmail: 'sender@example.com',
      createdAt: new Date().toISOString(),
      originalHash: 'sha256:00',
      recipients: Array.from({ length: SIGNERS }, (_, i) => ({
        ...person(i),
        role: 'signer' as const,
        order: i + 1,
        fields: fieldsOf(i),
      })),
    });
    let head = prepared.bytes;
    const rows: { revision: number; size: number; sign: Measured; step: Measured }[] = [];
    for (let i = 0; i < SIGNERS; i++) {
      const signed = profiler ? { cpu: NaN, wall: NaN } : await measure(sign);
      const fields = fieldsOf(i);
      const step = await measure(() =>
        signer.envelopes.signRevision({
          bytes: head,
          auditId: `A${String(e).padStart(11, '0')}`,
          fileName: 'bench.pdf',
          signer: person(i),
          signature: { mode: 'type', typedName: person(i).name, color: '#1e3a8a' },
          fields: [
            { field: fields[0] as TEnvelopeField },
            { field: fields[1] as TEnvelopeField, value: '2026-11-26' },
            { field: fields[2] as TEnvelopeField, value: `Value of ${person(i).name}` },
          ],
          reason: `Signed by ${person(i).name} (group ${i + 1})`,
          padesLevel: SERVICE_SIGNING.padesLevel,
        }),
      );
      rows.push({ revision: i + 1, size: head.length, sign: signed, step });
      head = step.result.bytes;
      onRevision?.(i, head);
    }
    return rows;
  };
  type Measured = { cpu: number; wall: number };

  process.stdout.write(`warming up (${WARMUP} envelopes of ${SIGNERS})…\n`);
  for (let e = 0; e < WARMUP; e++) await envelope(e);

  if (args.profile) profiler = await startCpuProfile();
  const all: Awaited<ReturnType<typeof envelope>> = [];
  for (let e = 0; e < ENVELOPES; e++) {
    const last = e === ENVELOPES - 1 && args.out ? args.out : undefined;
    if (last) mkdirSync(last, { recursive: true });
    const write = last
      ? (i: number, file: Buffer) => writeFileSync(join(last, `${i + 1}.pdf`), file)
      : undefined;
    all.push(...(await envelope(WARMUP + e, write)));
  }
  const profile = profiler ? await profiler.stop() : undefined;
  if (profile && args.profile) writeFileSync(args.profile, JSON.stringify(profile));

  const p = (xs: readonly number[], q: number) => quantile(xs, q).toFixed(2).padStart(8);
  const line = (name: string, xs: readonly Measured[]) =>
    `${name.padEnd(26)} ${p(
      xs.map((x) => x.cpu),
      0.5,
    )} ${p(
      xs.map((x) => x.cpu),
      0.95,
    )} ${p(
      xs.map((x) => x.wall),
      0.5,
    )} ${p(
      xs.map((x) => x.wall),
      0.95,
    )}`;
  const signs = all.map((r) => r.sign);
  const steps = all.map((r) => r.step);
  const cpuRatio =
    quantile(
      steps.map((x) => x.cpu),
      0.5,
    ) /
    quantile(
      signs.map((x) => x.cpu),
      0.5,
    );
  process.stdout.write(
    [
      '',
      `${new Date().toISOString()}, ${PAGES}-page text PDF (${(pdf.length / 1024).toFixed(1)} KB), ${ENVELOPES} envelopes x ${SIGNERS} signers after ${WARMUP} warm-up envelopes, B-LT, TSA ${tsa ? 'in-process stand-in' : 'off'}; ms per call, CPU of every thread of this process`,
      `${'call'.padEnd(26)} ${'cpu p50'.padStart(8)} ${'cpu p95'.padStart(8)} ${'wall p50'.padStart(8)} ${'wall p95'.padStart(8)}`,
      line(`sign (n=${signs.length})`, signs),
      line(`signRevision (n=${steps.length})`, steps),
      `revision / sign, CPU p50: ${cpuRatio.toFixed(2)}x`,
      'by revision (the size of the document it appends to; CPU p50):',
      ...Array.from({ length: SIGNERS }, (_, i) => {
        const rows = all.filter((r) => r.revision === i + 1);
        return `  ${String(i + 1).padStart(2)}: ${((rows[0]?.size ?? 0) / 1024).toFixed(1).padStart(6)} KB ${p(
          rows.map((r) => r.step.cpu),
          0.5,
        )} ms`;
      }),
      '',
    ].join('\n'),
  );
  if (profile) {
    process.stdout.write(
      `${summariseProfile(
        profile,
        steps.length,
        quantile(
          steps.map((x) => x.cpu),
          0.5,
        ),
        `an envelope's revision of a ${PAGES}-page document`,
        40,
      )}\n`,
    );
  }
  await tsa?.stop();
};

await main();
