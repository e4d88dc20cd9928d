/**
 * Process CPU per 1-page sign (drawn 300x100 PNG), in-process signer vs the pool of worker threads,
 * 8 at a time. Not a test: run it by hand.
 *
 *   [CONC=8] [ROUNDS=2] [HEAP=384] node --import tsx services/pdf-signer/scripts/measure-pool.ts [signs] [workers] [both|pool|local]
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createLogger } from '@esign/telemetry';
import { makePdf, makePng } from '@esign/testing';
import { createSigner } from '../src/index';
import type { SignInput, Signer } from '../src/index';
import { startSignPool } from '../src/workers/start-sign-pool';

const SIGNS = Number(process.argv[2] ?? 300);
const WORKERS = Number(process.argv[3] ?? 2);
const pdf = await makePdf({ pages: 1 });
const png = await makePng({ width: 300, height: 100 });
const input = (): SignInput => ({
  bytes: Buffer.from(pdf),
  kind: 'pdf',
  fileName: 'bench.pdf',
  signature: { mode: 'draw', imageBase64: png.toString('base64') },
  positions: [{ x: 50, y: 85, page: 0, width: 25 }],
  signer: { name: 'Bench Signer', email: 'bench@example.com', ipAddress: '127.0.0.1', userAgent: 'bench' },
  receivedAt: new Date().toISOString(),
});

const threads = () => {
  const out = new Map<string, number>();
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(`${comm}#${tid}`, ((Number(fields[11]) + Number(fields[12])) * 1000) / 100);
    } catch {
      // gone
    }
  }
  return out;
};

const cpuPerSign = async (signer: Signer, label: string) => {
  for (let round = 0; round < Number(process.env.ROUNDS ?? 2); round++) {
    const before = process.cpuUsage();
    const threadsBefore = threads();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: Number(process.env.CONC ?? 8) }, async () => {
        while (next < SIGNS) {
          next += 1;
          await signer.sign(input());
        }
      }),
    );
    const used = process.cpuUsage(before);
    const byName = new Map<string, number>();
    for (const [key, ms] of threads()) {
      const name = key.split('#')[0] ?? key;
      byName.set(name, (byName.get(name) ?? 0) + (ms - (threadsBefore.get(key) ?? 0)) / SIGNS);
    }
    console.log([...byName].map(([n, ms]) => `${n} ${ms.toFixed(2)}`).join(', '));
    console.log(
      `${label} round ${round + 1}: ${((used.user + used.system) / 1000 / SIGNS).toFixed(2)} ms CPU per sign, ` +
        `${((performance.now() - started) / SIGNS).toFixed(2)} ms wall per sign`,
    );
  }
};

const mode = process.argv[4] ?? 'both';
if (mode !== 'pool') await cpuPerSign(await createSigner({ warn: () => undefined }), 'in-process');
if (mode !== 'local') {
  const pool = await startSignPool({
    size: WORKERS,
    jobBudgetMs: 30_000,
    workerHeapMb: Number(process.env.HEAP ?? 384),
    logger: createLogger({ service: 'measure', level: 'error', write: () => undefined }),
  });
  await cpuPerSign(pool, `pool of ${WORKERS}`);
  await pool.close();
}
