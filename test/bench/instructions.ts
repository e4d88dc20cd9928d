/**
 * `pnpm bench:instructions`: the machine instructions one signing executes, ours next to the peers
 * of `bench:peers` (same signers, documents, certificate and TSA), counted by valgrind's callgrind.
 * Unlike CPU time, an instruction count does not move with the machine's load (other processes,
 * CPU frequency, cache contention), so two versions of the code can be compared on a busy machine.
 * It does not weigh instructions by their cost (a cache miss counts as one), so it is a companion to
 * `bench:peers`' CPU figures, not a replacement.
 *
 * Each row runs its signer in a node process of its own under `valgrind --tool=callgrind`: the signer
 * built and warmed up (`--warmup` signings), the counters are zeroed (`callgrind_control -z`), `--runs`
 * signings one at a time, the counters dumped (`callgrind_control -d`); the count over `--runs` is
 * one signing's, of every thread of the process (V8's compiler and GC threads included, as
 * `process.cpuUsage()` counts them). The last output of each row is checked with `pdfsig` and
 * `qpdf --check`. Needs valgrind; a few minutes a row (valgrind runs code 50-100x slower).
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { makePdf, makePng, pdfSig, qpdfCheck, startTestTsa } from '@esign/testing';
import type { TestTsa } from '@esign/testing';
import { makeTextPdf } from './documents';
import { makeIdentity, makeSigner, selectRows } from './peer-signers';
import type { SignerJob } from './peer-signers';

const DOCUMENTS = ['1-page', '20-page text'] as const;
type DocumentName = (typeof DOCUMENTS)[number];

/** What one counted process does: build the signer, warm up, sign `runs` times, keep the last output. */
interface Job extends SignerJob {
  document: string;
  warmup: number;
  runs: number;
  output: string;
}

const HERE = fileURLToPath(import.meta.url);
const ROOT = resolve(HERE, '../../..');

/** The next line the parent writes to the child's stdin. */
const nextLine = (): Promise<void> =>
  new Promise((resolveLine) => process.stdin.once('data', () => resolveLine()));

const runChild = async (job: Job): Promise<void> => {
  const document = readFileSync(job.document);
  const sign = await makeSigner(job);
  for (let i = 0; i < job.warmup; i++) await sign(document);
  // The parent zeroes the counters, then says go; it dumps them once told the signings are done.
  process.stdout.write('warm\n');
  await nextLine();
  let out: Uint8Array | undefined;
  for (let i = 0; i < job.runs; i++) out = await sign(document);
  process.stdout.write('done\n');
  await nextLine();
  if (out) writeFileSync(job.output, out);
  process.exit(0);
};

/** Instructions callgrind counted over the child's measured signings (every thread). */
const countInstructions = (jobPath: string, dumpDir: string, v8Flags: string[]): Promise<number> =>
  new Promise((resolvePromise, reject) => {
    const dumpFile = join(dumpDir, 'callgrind.out');
    const child = spawn(
      'valgrind',
      [
        '--tool=callgrind',
        `--callgrind-out-file=${dumpFile}`,
        '--trace-children=no',
        process.execPath,
        ...v8Flags,
        '--import',
        'tsx',
        HERE,
        '--child',
        jobPath,
      ],
      { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let stderr = '';
    let measured: number | undefined;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const control = (...args: string[]) =>
      execFileSync('callgrind_control', [...args, String(child.pid)], { stdio: 'ignore' });
    child.stdout.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      if (text.includes('warm')) {
        control('--zero');
        child.stdin.write('go\n');
      }
      if (text.includes('done')) {
        control('--dump=measured');
        const dumped = readdirSync(dumpDir).find((name) => name.startsWith('callgrind.out.'));
        const summary = dumped && /^summary: (\d+)/m.exec(readFileSync(join(dumpDir, dumped), 'utf8'))?.[1];
        measured = summary ? Number(summary) : undefined;
        child.stdin.write('exit\n');
      }
    });
    child.on('exit', (code) => {
      if (code === 0 && measured !== undefined) resolvePromise(measured);
      else reject(new Error(`valgrind exit ${code}: ${stderr.trim().split('\n').slice(-3).join(' ')}`));
    });
  });

const checkOutput = async (path: string): Promise<string> => {
  const bytes = readFileSync(path);
  const sig = await pdfSig(bytes);
  const verdicts = [...sig.stdout.matchAll(/Signature Validation: (.*)/g)].map((m) => m[1] ?? '');
  if (verdicts.length === 0 || verdicts.some((v) => v !== 'Signature is Valid.')) return 'FAIL pdfsig';
  const qpdf = await qpdfCheck(bytes);
  return qpdf.ok ? 'ok' : 'FAIL qpdf --check';
};

const main = async () => {
  const { values: args } = parseArgs({
    options: {
      runs: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '40' },
      peers: { type: 'string', default: 'ours,libpdf' },
      levels: { type: 'string', default: 'B-B' },
      documents: { type: 'string', default: 'all' },
      // Keep each row's callgrind dump in this directory (for callgrind_annotate).
      keep: { type: 'string', default: '' },
      // Flags for the counted node processes (space-separated).
      'node-flags': { type: 'string', default: '' },
      child: { type: 'boolean', default: false },
    },
  });
  const runs = Number(args.runs);
  const v8Flags = args['node-flags'].split(' ').filter(Boolean);
  const warmup = Number(args.warmup);
  const { peers, levels, documents } = selectRows(args, DOCUMENTS);

  const dir = mkdtempSync(join(tmpdir(), 'esign-instructions-'));
  let tsa: TestTsa | undefined;
  try {
    const identity = await makeIdentity(dir);
    const files: Record<DocumentName, string> = {
      '1-page': join(dir, 'one-page.pdf'),
      '20-page text': join(dir, 'text-20.pdf'),
    };
    writeFileSync(files['1-page'], await makePdf({ pages: 1 }));
    writeFileSync(files['20-page text'], await makeTextPdf(20));
    const png = join(dir, 'signature.png');
    writeFileSync(png, await makePng({ width: 300, height: 100 }));
    if (levels.includes('B-T')) tsa = await startTestTsa();

    process.stdout.write(
      `Node ${process.version}, ${new Date().toISOString()}; ${runs} signings after ${warmup} to warm up, counted by callgrind (all threads)\n\n`,
    );
    process.stdout.write(`${'document'.padEnd(13)} level peer     instructions/signing  ratio   check\n`);
    const ours = new Map<string, number>();
    for (const document of documents) {
      for (const level of levels) {
        for (const peer of peers) {
          if (peer === 'signpdf' && level === 'B-T') continue;
          const label = `${document.padEnd(13)} ${level.padEnd(5)} ${peer.padEnd(8)}`;
          const jobPath = join(dir, `job-${peer}-${level}.json`);
          const output = join(dir, `out-${peer}-${level}.pdf`);
          const dumpDir = join(dir, `callgrind-${peer}-${level}-${document.replace(/\W/g, '')}`);
          mkdirSync(dumpDir);
          const job: Job = {
            peer,
            level,
            document: files[document],
            png,
            ...identity,
            ...(tsa ? { tsaUrl: tsa.url } : {}),
            warmup,
            runs,
            output,
          };
          writeFileSync(jobPath, JSON.stringify(job));
          try {
            const perSigning = (await countInstructions(jobPath, dumpDir, v8Flags)) / runs;
            if (args.keep) {
              mkdirSync(args.keep, { recursive: true });
              for (const name of readdirSync(dumpDir).filter((n) => n.startsWith('callgrind.out.'))) {
                copyFileSync(
                  join(dumpDir, name),
                  join(args.keep, `${peer}-${level}-${document.replace(/\W/g, '')}.callgrind`),
                );
              }
            }
            const key = `${document} ${level}`;
            if (peer === 'ours') ours.set(key, perSigning);
            const ourCount = ours.get(key);
            const ratio = ourCount ? `${(perSigning / ourCount).toFixed(2)}x` : '-';
            const check = await checkOutput(output);
            process.stdout.write(
              `${label} ${(perSigning / 1e6).toFixed(2).padStart(12)} M ${ratio.padStart(12)}   ${check}\n`,
            );
            if (check !== 'ok') process.exitCode = 1;
          } catch (err) {
            process.stdout.write(`${label} failed: ${(err as Error).message.slice(0, 200)}\n`);
            process.exitCode = 1;
          }
        }
      }
    }
    process.stdout.write('\nratio: the row over ours for the same document and level\n');
  } finally {
    await tsa?.stop();
    rmSync(dir, { recursive: true, force: true });
  }
};

const childAt = process.argv.indexOf('--child');
if (childAt >= 0) {
  const job = JSON.parse(readFileSync(process.argv[childAt + 1] ?? '', 'utf8')) as Job;
  await runChild(job);
} else {
  await main();
}
