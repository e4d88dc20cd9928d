/**
 * Warm medians of in-process signing (the same code `pdf.sign` runs), for a 1-page PDF and a ~20 MB
 * PDF, and the peak memory of the large case. Not a test: run it by hand on an idle machine.
 *
 *   node --import tsx services/pdf-signer/scripts/measure.ts
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await signer.sign(input);
    samples.push(performance.now() - t);
  }
  console.log(
    `${label}: median ${median(samples).toFixed(1)} ms (min ${Math.min(...samples).toFixed(1)}, ${runs} runs)`,
  );
};

const onePage = await makePdf({ pages: 1, text: 'Contract' });
await time('1-page PDF, drawn PNG signature', { ...base, bytes: onePage, kind: 'pdf' }, 30);
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
