/**
 * `pnpm bench:peers`: our signer next to two other Node PDF signers, on the same documents, with the
 * same RSA-2048 certificate and, for B-T, the same local TSA (`startTestTsa`, one `openssl ts -reply`
 * per request), in one run:
 * - ours: `createSigner().sign`, in-process (what the `pdf.sign` handler calls);
 * - `@libpdf/core` (Documenso's PDF library): `PDF.load(bytes).sign({ level })`, an invisible
 *   signature, PAdES (ETSI.CAdES.detached);
 * - `@signpdf/signpdf` with `@signpdf/placeholder-pdf-lib` and `@signpdf/signer-p12`: pdf-lib adds the
 *   placeholder and saves the document again, node-forge signs (adbe.pkcs7.detached; no timestamps).
 * Each peer, level and document runs in a child process of its own (so that one's heap is not in
 * another's figure): `--warmup` signings to warm up, a forced collection, `--settle` signings more
 * (untimed: V8 takes 100-150 signings to return to its pace after a forced collection, which made
 * medians over the 50 runs after 40 of the first version up to 3x the steady figure, and unevenly:
 * more for the peer that allocates more), then `--runs` signings one at a time, each timed in
 * CPU (`process.cpuUsage()`: every thread of the process) and wall time. Peak memory is the child's
 * resident high-water mark (VmHWM, reset once the child is idle: the signer built, the document read,
 * the warm-up done, garbage collected) minus its resident memory then. The first and last output of each row are checked with `pdfsig`
 * and `qpdf --check`; a row whose output fails says so. `--profile` also writes a V8 CPU profile of our
 * one-page B-B signings (.data/profiles) and prints where their CPU goes.
 * The peer packages are dev dependencies of this benchmark's package (`test/`) only.
 */
import { fork } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  DEFAULT_WORKER_HEAP_MB,
  HEAP_GROWING_PERCENT,
  WORKER_YOUNG_GENERATION_MB,
} from '@esign/pdf-signer/worker-limits';
import { makeLargePdf, makePdf, makePng, pdfSig, qpdfCheck, startTestTsa } from '@esign/testing';
import type { TestTsa } from '@esign/testing';
import { makeTextPdf } from './documents';
import { LEVELS, makeIdentity, makeSigner, PEERS, selectRows } from './peer-signers';
import type { Level, Peer, SignerJob } from './peer-signers';
import { startCpuProfile, summariseProfile } from './profile-summary';
import type { CpuProfile } from './profile-summary';

const DOCUMENTS = ['1-page', '20-page text', '20 MB image'] as const;
type DocumentName = (typeof DOCUMENTS)[number];
const MB = 1024 * 1024;

/** What a child process is asked to do. */
interface Job extends SignerJob {
  document: string;
  warmup: number;
  /** Signings after the forced collection that are not timed (their memory counts in the peak). */
  settle: number;
  runs: number;
  outDir: string;
  profile?: string;
}

/** What a child process reports. */
interface Measured {
  cpuMs: number[];
  wallMs: number[];
  sizes: number[];
  idleRssBytes: number;
  peakRssBytes: number;
  /** Where the first and the last output were written. */
  outputs: string[];
}

const HERE = fileURLToPath(import.meta.url);
const ROOT = resolve(HERE, '../../..');

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
};

const statusKb = (field: 'VmRSS' | 'VmHWM'): number =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;

// ---------------------------------------------------------------------------------------------------
// Child: one peer, one level, one document.
// ---------------------------------------------------------------------------------------------------

const runChild = async (job: Job): Promise<Measured> => {
  const document = readFileSync(job.document);
  const sign = await makeSigner(job);
  // Idle: the signer built, the document read and the warm-up done (the modules a first signing loads
  // lazily, e.g. fetch for a TSA, loaded), garbage collected.
  for (let i = 0; i < job.warmup; i++) await sign(document);
  globalThis.gc?.();
  await new Promise((r) => setTimeout(r, 50));
  const idleRssBytes = statusKb('VmRSS');
  // Reset the resident high-water mark (Linux: 5 > clear_refs) to the level now.
  writeFileSync('/proc/self/clear_refs', '5');
  for (let i = 0; i < job.settle; i++) await sign(document);
  const profiler = job.profile ? await startCpuProfile() : undefined;
  const measured: Measured = { cpuMs: [], wallMs: [], sizes: [], idleRssBytes, peakRssBytes: 0, outputs: [] };
  for (let i = 0; i < job.runs; i++) {
    const cpu = process.cpuUsage();
    const started = performance.now();
    const out = await sign(document);
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    measured.cpuMs.push((used.user + used.system) / 1000);
    measured.wallMs.push(wall);
    measured.sizes.push(out.length);
    if (i === 0 || i === job.runs - 1) {
      const path = join(job.outDir, `${job.peer}-${job.level}-${i}.pdf`);
      writeFileSync(path, out);
      measured.outputs.push(path);
    }
  }
  if (profiler && job.profile) writeFileSync(job.profile, JSON.stringify(await profiler.stop()));
  measured.peakRssBytes = statusKb('VmHWM');
  return measured;
};

// ---------------------------------------------------------------------------------------------------
// Parent: fixtures, the TSA, one child per row, the checks and the table.
// ---------------------------------------------------------------------------------------------------

/** Extra Node/V8 flags for every child alike (`--node-flags`). */
let nodeFlags: string[] = [];

/**
 * Our signer's heap as a signing worker has it (its `resourceLimits`: services/pdf-signer/src/workers/
 * worker-limits.ts): a young generation of WORKER_YOUNG_GENERATION_MB (V8's is three semi-spaces'
 * worth), SIGN_WORKER_HEAP_MB's default old-generation cap (DEFAULT_WORKER_HEAP_MB) and the heap
 * growing factor the signer's process sets (HEAP_GROWING_PERCENT). Node's defaults (16 MB semi-spaces on
 * this machine) made V8 start a full marking of our ~47 MB live heap every 20-25 signings while they
 * waited on the TSA (`--trace-incremental-marking`): that is not how the service signs. The peers
 * run with Node's defaults, as they ship.
 */
const OURS_HEAP_FLAGS = [
  `--max-semi-space-size=${WORKER_YOUNG_GENERATION_MB / 3}`,
  `--max-old-space-size=${DEFAULT_WORKER_HEAP_MB}`,
  `--heap-growing-percent=${HEAP_GROWING_PERCENT}`,
];

const spawnChild = (job: Job): Promise<Measured> =>
  new Promise((resolvePromise, reject) => {
    const child = fork(HERE, ['--child'], {
      execArgv: [
        '--import',
        'tsx',
        '--expose-gc',
        ...(job.peer === 'ours' ? OURS_HEAP_FLAGS : []),
        ...nodeFlags,
      ],
      stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
      cwd: ROOT,
    });
    let stderr = '';
    let result: Measured | undefined;
    child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('message', (message: { ok: true; measured: Measured } | { ok: false; error: string }) => {
      if (message.ok) result = message.measured;
      else stderr += message.error;
    });
    child.on('exit', (code) => {
      if (result) resolvePromise(result);
      else reject(new Error(`child exited ${code}: ${stderr.trim().split('\n')[0] ?? ''}`));
    });
    child.send(job);
  });

/** `pdfsig`: every signature valid (an untrusted certificate is fine); `qpdf --check`: no error, no warning. */
const checkOutput = async (path: string): Promise<string | undefined> => {
  const bytes = readFileSync(path);
  const sig = await pdfSig(bytes);
  const verdicts = [...sig.stdout.matchAll(/Signature Validation: (.*)/g)].map((m) => m[1] ?? '');
  if (verdicts.length === 0) return 'pdfsig: no signature';
  const bad = verdicts.find((v) => v !== 'Signature is Valid.');
  if (bad !== undefined) return `pdfsig: ${bad}`;
  const qpdf = await qpdfCheck(bytes);
  if (!qpdf.ok) {
    const first = `${qpdf.stderr}\n${qpdf.stdout}`.split('\n').find((l) => /WARNING|error/i.test(l));
    return `qpdf --check exit ${qpdf.code}: ${(first ?? '').trim().slice(0, 100)}`;
  }
  return undefined;
};

const FEATURES: Record<Peer, string> = {
  ours: 'visible stamp (PNG), audit page (verify URL + QR), audit data (XMP + Info), rewritten (incremental once signed); no DSS',
  libpdf: 'invisible, PAdES (ETSI.CAdES.detached), incremental; no stamp/audit/DSS',
  signpdf: 'invisible, adbe.pkcs7.detached, document re-saved by pdf-lib; no stamp/audit/DSS',
};

interface Row {
  document: DocumentName;
  level: Level;
  peer: Peer;
  measured?: Measured;
  /** Why there are no figures (not supported, failed to run). */
  note?: string;
  /** Why the output fails the checks. */
  failure?: string;
}

const main = async () => {
  const { values: args } = parseArgs({
    options: {
      runs: { type: 'string', default: '300' },
      'large-runs': { type: 'string', default: '10' },
      warmup: { type: 'string', default: '200' },
      settle: { type: 'string', default: '200' },
      peers: { type: 'string', default: PEERS.join(',') },
      levels: { type: 'string', default: LEVELS.join(',') },
      documents: { type: 'string', default: 'all' },
      profile: { type: 'boolean', default: false },
      'profile-runs': { type: 'string', default: '200' },
      // Which document the profile signs (a prefix, as for --documents): 1-page or 20-page.
      'profile-document': { type: 'string', default: '1-page' },
      // Which level the profile signs at (B-T asks the same local TSA as the table's rows).
      'profile-level': { type: 'string', default: 'B-B' },
      // Node or V8 flags for every signer's process alike, e.g. '--max-semi-space-size=32'.
      'node-flags': { type: 'string', default: '' },
      child: { type: 'boolean', default: false },
    },
  });
  nodeFlags = args['node-flags'].split(' ').filter(Boolean);
  const runs = Number(args.runs);
  const largeRuns = Math.min(runs, Number(args['large-runs']));
  const warmup = Number(args.warmup);
  const settle = Number(args.settle);
  const { peers, levels, documents } = selectRows(args, DOCUMENTS);

  const dir = mkdtempSync(join(tmpdir(), 'esign-peers-'));
  let tsa: TestTsa | undefined;
  try {
    process.stdout.write('preparing the certificate, documents and TSA…\n');
    const identity = await makeIdentity(dir);
    const files: Record<DocumentName, string> = {
      '1-page': join(dir, 'one-page.pdf'),
      '20-page text': join(dir, 'text-20.pdf'),
      '20 MB image': join(dir, 'image-20mb.pdf'),
    };
    const sizes = new Map<DocumentName, number>();
    for (const name of documents) {
      const bytes =
        name === '1-page'
          ? await makePdf({ pages: 1 })
          : name === '20-page text'
            ? await makeTextPdf(20)
            : await makeLargePdf(20 * MB);
      writeFileSync(files[name], bytes);
      sizes.set(name, bytes.length);
    }
    const png = join(dir, 'signature.png');
    writeFileSync(png, await makePng({ width: 300, height: 100 }));
    if (levels.includes('B-T')) tsa = await startTestTsa();

    const rows: Row[] = [];
    for (const document of documents) {
      for (const level of levels) {
        for (const peer of peers) {
          const row: Row = { document, level, peer };
          rows.push(row);
          if (peer === 'signpdf' && level === 'B-T') {
            row.note = 'cannot: @signpdf has no RFC 3161 timestamps';
            continue;
          }
          const outDir = join(dir, `out-${rows.length}`);
          mkdirSync(outDir);
          process.stdout.write(`  ${document}, ${level}, ${peer}…\n`);
          try {
            row.measured = await spawnChild({
              peer,
              level,
              document: files[document],
              png,
              ...identity,
              ...(tsa ? { tsaUrl: tsa.url } : {}),
              warmup: document === '20 MB image' ? Math.min(warmup, 2) : warmup,
              settle: document === '20 MB image' ? Math.min(settle, 2) : settle,
              runs: document === '20 MB image' ? largeRuns : runs,
              outDir,
            });
            for (const path of row.measured.outputs) {
              row.failure ??= await checkOutput(path);
            }
          } catch (err) {
            row.note = `failed: ${(err as Error).message.slice(0, 160)}`;
          }
          rmSync(outDir, { recursive: true, force: true });
        }
      }
    }
    printTable(rows, sizes, { runs, largeRuns, warmup, settle });
    // A row that failed to run or whose output fails the checks fails the command (the smoke check).
    if (rows.some((row) => row.failure ?? row.note?.startsWith('failed'))) process.exitCode = 1;

    if (args.profile) {
      const profileDir = join(ROOT, '.data', 'profiles');
      mkdirSync(profileDir, { recursive: true });
      const profiled: DocumentName =
        DOCUMENTS.find((d) => d.startsWith(args['profile-document']) && d !== '20 MB image') ?? '1-page';
      const slug = profiled === '1-page' ? '1page' : '20page';
      const profileLevel: Level = args['profile-level'] === 'B-T' ? 'B-T' : 'B-B';
      if (profileLevel === 'B-T') tsa ??= await startTestTsa();
      const path = join(
        profileDir,
        `peers-ours-${slug}-${profileLevel.replace('-', '')}-${Date.now()}.cpuprofile`,
      );
      const outDir = join(dir, 'out-profile');
      mkdirSync(outDir);
      const profileRuns = Number(args['profile-runs']);
      process.stdout.write(
        `\nprofiling ours, ${profiled}, ${profileLevel} (${profileRuns} signings after ${warmup * 4} + ${settle} to warm up)…\n`,
      );
      if (!sizes.has(profiled)) {
        writeFileSync(
          files[profiled],
          profiled === '1-page' ? await makePdf({ pages: 1 }) : await makeTextPdf(20),
        );
      }
      const measured = await spawnChild({
        peer: 'ours',
        level: profileLevel,
        document: files[profiled],
        png,
        ...identity,
        ...(tsa ? { tsaUrl: tsa.url } : {}),
        warmup: warmup * 4,
        settle,
        runs: profileRuns,
        outDir,
        profile: path,
      });
      const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile;
      process.stdout.write(
        `${summariseProfile(profile, measured.cpuMs.length, quantile(measured.cpuMs, 0.5), `${profiled} ${profileLevel}`)}\nprofile: ${path} (open in Chrome DevTools or speedscope)\n`,
      );
    }
  } finally {
    await tsa?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

const printTable = (
  rows: Row[],
  sizes: Map<DocumentName, number>,
  counts: { runs: number; largeRuns: number; warmup: number; settle: number },
) => {
  const fmt = (value: number, digits = 1) => (Number.isFinite(value) ? value.toFixed(digits) : '-');
  const ratio = (value: number, ours: number | undefined) =>
    ours && Number.isFinite(value) ? `${(value / ours).toFixed(2)}x` : '-';
  const header = [
    'document'.padEnd(13),
    'level',
    'peer'.padEnd(8),
    'cpu p50'.padStart(8),
    'cpu p95'.padStart(8),
    'wall p50'.padStart(8),
    'wall p95'.padStart(8),
    'peak +MB'.padStart(8),
    'size KB'.padStart(9),
    ' cpu/ours',
    'wall/ours',
    ' mem/ours',
    'size/ours',
    ' check',
  ].join(' ');
  const lines = [
    '',
    `${cpus().length} x ${cpus()[0]?.model ?? '?'}, Node ${process.version}, ${new Date().toISOString()}; runs: ${counts.runs} (20 MB: ${counts.largeRuns}) after ${counts.warmup} + ${counts.settle} after a forced collection (20 MB: ${Math.min(counts.warmup, 2)} + ${Math.min(counts.settle, 2)}) to warm up, one at a time, each row its own process`,
    `documents: ${[...sizes].map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)} KB`).join(', ')}; times in ms per signature`,
    '',
    header,
  ];
  for (const row of rows) {
    const label = `${row.document.padEnd(13)} ${row.level.padEnd(5)} ${row.peer.padEnd(8)}`;
    if (!row.measured) {
      lines.push(`${label} ${row.note ?? ''}`);
      continue;
    }
    const m = row.measured;
    const ours = rows.find(
      (r) => r.peer === 'ours' && r.document === row.document && r.level === row.level,
    )?.measured;
    const cpu50 = quantile(m.cpuMs, 0.5);
    const wall50 = quantile(m.wallMs, 0.5);
    const peak = (m.peakRssBytes - m.idleRssBytes) / MB;
    const size = quantile(m.sizes, 0.5);
    lines.push(
      [
        label,
        fmt(cpu50, cpu50 < 10 ? 2 : 1).padStart(8),
        fmt(quantile(m.cpuMs, 0.95)).padStart(8),
        fmt(wall50, wall50 < 10 ? 2 : 1).padStart(8),
        fmt(quantile(m.wallMs, 0.95)).padStart(8),
        fmt(peak).padStart(8),
        fmt(size / 1024).padStart(9),
        ratio(cpu50, ours && quantile(ours.cpuMs, 0.5)).padStart(9),
        ratio(wall50, ours && quantile(ours.wallMs, 0.5)).padStart(9),
        // Under 1 MB, ours is within the noise of resident memory: no ratio to it.
        (ours && ours.peakRssBytes - ours.idleRssBytes >= MB
          ? ratio(peak, (ours.peakRssBytes - ours.idleRssBytes) / MB)
          : '-'
        ).padStart(9),
        ratio(size, ours && quantile(ours.sizes, 0.5)).padStart(9),
        row.failure ? ` FAIL ${row.failure}` : ' ok',
      ].join(' '),
    );
  }
  lines.push(
    '',
    'What each run includes:',
    ...PEERS.map((peer) => `  ${peer.padEnd(8)} ${FEATURES[peer]}`),
    '  B-T: a signature timestamp from the same local openssl TSA (in the parent process; its CPU is in no row)',
    'mem/ours: "-" where our peak is under 1 MB (resident memory moves that much by itself)',
    'check: pdfsig (every signature "Signature is Valid."; the self-signed certificate is untrusted) and',
    '  qpdf --check (no error, no warning) on the first and the last output of each row',
    '',
  );
  process.stdout.write(lines.join('\n'));
};

if (process.argv.includes('--child')) {
  process.once('message', (job: Job) => {
    runChild(job).then(
      (measured) => process.send?.({ ok: true, measured }, () => process.exit(0)),
      (err: unknown) =>
        process.send?.(
          { ok: false, error: err instanceof Error ? (err.stack ?? err.message) : String(err) },
          () => process.exit(1),
        ),
    );
  });
} else {
  await main();
}
