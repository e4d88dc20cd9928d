/**
 * Warm medians of in-process signing (the same code `pdf.sign` runs), for a 1-page PDF and a ~20 MB
 * PDF, and the peak memory of the large case. Not a test: run it by hand on an idle machine.
 *
 *   node --import tsx services/pdf-signer/scripts/measure.ts [--quick]
 *
 * `--quick` stops after the benchmark's case (1-page PDF, drawn 300x100 PNG): its warm median and its
 * process CPU per sign (and per thread); `--long` measures that CPU again after 1000 more signs;
 * `--large` times only the 20 MB PDF.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { makeJpeg, makeLargePdf, makePdf, makePng } from '@esign/testing';
import { createSigner } from '../src/index';
import type { SignInput } from '../src/index';

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

// Child mode: sign one file once and print how far the peak RSS rose above the idle, loaded state.
const memoryFile = process.argv[2] === '--memory' ? process.argv[3] : undefined;
if (memoryFile) {
  const signer = await createSigner({ warn: () => undefined });
  const bytes = readFileSync(memoryFile);
  const png = await makePng();
  const input: SignInput = {
    bytes,
    kind: 'pdf',
    fileName: 'large.pdf',
    signature: { mode: 'draw', imageBase64: png.toString('base64') },
    positions: [{ x: 50, y: 85, page: 0, width: 25 }],
    signer: { name: 'Jane Doe', email: 'jane@example.com', ipAddress: '203.0.113.7', userAgent: 'measure' },
    receivedAt: new Date().toISOString(),
  };
  const baseline = process.resourceUsage().maxRSS * 1024;
  await signer.sign(input);
  const peak = process.resourceUsage().maxRSS * 1024;
  console.log(JSON.stringify({ baseline, peak, fileSize: bytes.length }));
  process.exit(0);
}

const started = performance.now();
const signer = await createSigner({ warn: () => undefined });
console.log(
  `createSigner (fonts, development key and certificate): ${(performance.now() - started).toFixed(0)} ms`,
);

const png = await makePng();
const base: Omit<SignInput, 'bytes' | 'kind'> = {
  fileName: 'contract.pdf',
  signature: { mode: 'draw', imageBase64: png.toString('base64') },
  positions: [{ x: 50, y: 85, page: 0, width: 25 }],
  signer: {
    name: 'Jane Doe',
    email: 'jane@example.com',
    ipAddress: '203.0.113.7',
    userAgent: 'Mozilla/5.0 measure',
  },
  receivedAt: new Date().toISOString(),
};

const time = async (label: string, input: SignInput, runs: number, warm = 3) => {
  for (let i = 0; i < warm; i++) await signer.sign(input);
  const samples: number[] = [];
  const cpuStart = process.cpuUsage();
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await signer.sign(input);
    samples.push(performance.now() - t);
  }
  const cpu = process.cpuUsage(cpuStart);
  console.log(
    `${label}: median ${median(samples).toFixed(1)} ms (min ${Math.min(...samples).toFixed(1)}, ${runs} runs; ` +
      `process CPU ${((cpu.user + cpu.system) / 1000 / runs).toFixed(1)} ms per sign)`,
  );
};

/** CPU time (user + system, ms) of each of this process's threads so far, by thread id (Linux only). */
const threadCpu = (): Map<string, { name: string; ms: number }> => {
  const threads = new Map<string, { name: string; ms: number }>();
  try {
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const name =
        tid === String(process.pid)
          ? 'main'
          : stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')).replace(/[0-9]+$/, '');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(tid, { name, ms: ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 });
    }
  } catch {
    // Not Linux: the per-thread line stays empty.
  }
  return threads;
};

/**
 * Process CPU (every thread: JavaScript, libuv's pool, libvips, zlib) per sign over `total` signs run
 * `concurrency` at a time, as `pnpm bench:sign` loads the signer; wall-clock medians hide work that
 * other threads do.
 */
const cpuPerSign = async (label: string, input: SignInput, total = 300, concurrency = 8, warm = 20) => {
  for (let i = 0; i < warm; i++) await signer.sign(input);
  const threadsStart = threadCpu();
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  let next = 0;
  const worker = async () => {
    while (next++ < total) await signer.sign(input);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = (performance.now() - wallStart) / 1000;
  const cpu = process.cpuUsage(cpuStart);
  console.log(
    `${label}: ${((cpu.user + cpu.system) / 1000 / total).toFixed(2)} ms process CPU per sign ` +
      `(user ${(cpu.user / 1000 / total).toFixed(2)}, system ${(cpu.system / 1000 / total).toFixed(2)}; ` +
      `${(total / seconds).toFixed(0)} signs/s, ${total} signs at ${concurrency} concurrent)`,
  );
  const byName = new Map<string, number>();
  for (const [tid, { name, ms }] of threadCpu()) {
    const spent = ms - (threadsStart.get(tid)?.ms ?? 0);
    if (spent > 0) byName.set(name, (byName.get(name) ?? 0) + spent);
  }
  console.log(
    `  per thread: ${[...byName]
      .sort((a, b) => b[1] - a[1])
      .map(([name, ms]) => `${name} ${(ms / total).toFixed(2)}`)
      .join(', ')} ms`,
  );
};

if (process.argv.includes('--large')) {
  const large = await makeLargePdf(20 * 1024 * 1024);
  await time(`${mib(large.length)} PDF`, { ...base, bytes: large, kind: 'pdf' }, 10, 2);
  process.exit(0);
}

const onePage = await makePdf({ pages: 1, text: 'Contract' });
// The benchmark's signature: a 300x100 drawn PNG with alpha.
const drawn = await makePng({ width: 300, height: 100 });
const drawnInput: SignInput = {
  ...base,
  bytes: onePage,
  kind: 'pdf',
  signature: { mode: 'draw', imageBase64: drawn.toString('base64') },
};
await time('1-page PDF, drawn 300x100 PNG signature', drawnInput, 30);
await cpuPerSign('1-page PDF, drawn 300x100 PNG signature', drawnInput);
if (process.argv.includes('--long')) {
  // The same again, after many more warm-up signs: JIT compilation on V8's threads settles late.
  await cpuPerSign('  again after 1000 more signs', drawnInput, 300, 8, 1000);
}
if (process.argv.includes('--quick')) process.exit(0);
await time('1-page PDF, drawn 600x200 PNG signature', { ...base, bytes: onePage, kind: 'pdf' }, 30);
await time(
  '1-page PDF, typed Latin name',
  {
    ...base,
    bytes: onePage,
    kind: 'pdf',
    signature: { mode: 'type', typedName: 'Jane Doe', color: '#1e3a8a' },
  },
  30,
);
await time(
  '1-page PDF, typed Chinese + Arabic name, Unicode audit page',
  {
    ...base,
    bytes: onePage,
    kind: 'pdf',
    signature: { mode: 'type', typedName: '王小明 محمد', color: '#1e3a8a' },
    signer: { ...base.signer, name: '王小明 محمد' },
  },
  30,
);
const photo = await makeJpeg({ width: 3024, height: 4032, exifOrientation: 6 });
await time(`12 MP JPEG photo (${mib(photo.length)}), EXIF 6`, { ...base, bytes: photo, kind: 'jpeg' }, 10);

const large = await makeLargePdf(20 * 1024 * 1024);
await time(
  `${mib(large.length)} PDF (${Math.round(large.length / 1024 / 1024)} pages)`,
  { ...base, bytes: large, kind: 'pdf' },
  7,
  2,
);

// Peak memory of one large request, in a fresh process so that nothing above inflates the peak.
const file = join(tmpdir(), `esign-measure-${process.pid}.pdf`);
writeFileSync(file, large);
try {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--memory', file],
    {
      encoding: 'utf8',
    },
  );
  const { baseline, peak, fileSize } = JSON.parse(out.trim().split('\n').pop() ?? '{}') as Record<
    string,
    number
  >;
  const grown = (peak ?? 0) - (baseline ?? 0);
  console.log(
    `  one ${mib(fileSize ?? 0)} request raised peak RSS by ${mib(grown)} (${(grown / (fileSize ?? 1)).toFixed(1)}x the file size; ` +
      `idle process with the file loaded: ${mib(baseline ?? 0)})`,
  );
} finally {
  rmSync(file, { force: true });
}
