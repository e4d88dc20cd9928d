import { execFile } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '@esign/contracts';
import { makePng } from '@esign/testing';
import { createSigner } from '../src/index';
import type { SignInput, Signer } from '../src/index';

/**
 * Every PDF of the shared corpus (real-world and malformed files from the qpdf test suite) is either
 * signed, with a seal that pdfsig accepts and a file that `qpdf --check` accepts (unless the input
 * already fails it), or refused as the caller's fault with a message a person can read; none takes
 * long, none is an internal error. CI clones the repository with `shared/` beside it.
 */
const REPO_ROOT = resolve(import.meta.dirname, '../../..');
const CORPUS = resolve(REPO_ROOT, '../shared/corpus');
const PER_FILE_LIMIT_MS = 10_000;
const TOOL_CONCURRENCY = 2;

const listPdfs = (dir: string): string[] =>
  readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) return listPdfs(path);
      return name.toLowerCase().endsWith('.pdf') ? [path] : [];
    });

const files = existsSync(CORPUS) ? listPdfs(CORPUS) : [];

interface ToolRun {
  code: number;
  stdout: string;
}

const runTool = (tool: string, args: string[]): Promise<ToolRun> =>
  new Promise((done, fail) => {
    execFile(tool, args, { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout) => {
      // A tool that crashes (qpdf 11.3 overflows its stack on one corpus file) ends by a signal.
      if (err?.signal) done({ code: -1, stdout: String(stdout) });
      else if (err && typeof err.code !== 'number') fail(new Error(`${tool} could not run: ${err.message}`));
      else done({ code: err ? Number(err.code) : 0, stdout: String(stdout) });
    });
  });

/** Runs at most `limit` tasks at once, in the order they were queued. */
const createLimiter = (limit: number) => {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= limit) await new Promise<void>((go) => waiting.push(go));
    running++;
    try {
      return await task();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
};

/** What a person may read: no stack frames, no JavaScript error names, no source paths. */
const INTERNALS =
  /TypeError|RangeError|ReferenceError|SyntaxError|Cannot read|undefined|\bat \S+ \(|\.ts:\d+|\.js:\d+/;

let signer: Signer;
let base: Omit<SignInput, 'bytes'>;
let scratch: string;

beforeAll(async () => {
  signer = await createSigner({ warn: () => undefined });
  base = {
    kind: 'pdf',
    fileName: 'corpus.pdf',
    // A drawn signature of the usual size, stamped once on the first page.
    signature: { mode: 'draw', imageBase64: (await makePng({ width: 300, height: 100 })).toString('base64') },
    positions: [{ x: 55, y: 80, page: 0, width: 30 }],
    signer: {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      ipAddress: '198.51.100.9',
      userAgent: 'Corpus/1.0',
    },
    receivedAt: '2026-11-23T12:00:00.000Z',
  };
  scratch = await mkdtemp(join(tmpdir(), 'esign-corpus-'));
});

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('the corpus of real-world and malformed PDFs', () => {
  it(`is found beside the repository (${CORPUS})`, () => {
    expect(
      existsSync(CORPUS),
      `the PDF corpus is missing: clone or copy shared/ so that ${CORPUS} holds it`,
    ).toBe(true);
    expect(files.length, `too few PDFs under ${CORPUS}`).toBeGreaterThan(400);
  });

  it(
    'signs every file, or refuses it as the caller’s fault with a readable message',
    { timeout: 360_000 },
    async () => {
      const problems: string[] = [];
      const outcomes = new Map<string, string[]>();
      const count = (outcome: string, name: string) =>
        outcomes.set(outcome, [...(outcomes.get(outcome) ?? []), name]);
      const limit = createLimiter(TOOL_CONCURRENCY);
      const checks: Promise<void>[] = [];
      let slowest = { name: '', ms: 0 };
      let inheritedCheckFailures = 0;

      const verify = async (path: string, name: string, signed: Buffer, index: number) => {
        const out = join(scratch, `${index}.pdf`);
        await writeFile(out, signed);
        const [check, sig] = await Promise.all([
          limit(() => runTool('qpdf', ['--check', out])),
          limit(() => runTool('pdfsig', [out])),
        ]);
        await rm(out, { force: true });
        if (!sig.stdout.includes('Signature is Valid.')) {
          problems.push(`${name}: pdfsig does not report the signature valid: ${sig.stdout.slice(0, 300)}`);
        }
        if (check.code !== 0) {
          const before = await limit(() => runTool('qpdf', ['--check', path]));
          if (before.code !== 0) inheritedCheckFailures += 1;
          else {
            problems.push(
              `${name}: qpdf --check fails on the signed file (${check.code}) but not on the input`,
            );
          }
        }
      };

      for (const [index, path] of files.entries()) {
        const name = relative(CORPUS, path);
        const bytes = await readFile(path);
        const started = performance.now();
        let outcome: string;
        try {
          const result = await signer.sign({ ...base, bytes });
          const sealed = result.events.find((e) => e.event === 'document.sealed')?.details ?? {};
          outcome =
            sealed.repaired === true ? `signed after repair (${String(sealed.repairReason)})` : 'signed';
          checks.push(verify(path, name, result.bytes, index));
        } catch (err) {
          if (err instanceof ServiceError) {
            outcome = `${err.code}: ${err.message}`;
            if (err.code !== 'invalid_argument' && err.code !== 'too_large') {
              problems.push(`${name}: refused as ${err.code}, not as the caller's fault: ${err.message}`);
            } else if (err.field !== 'file' || !err.message.startsWith('file')) {
              problems.push(`${name}: the refusal does not name file: ${err.message}`);
            } else if (INTERNALS.test(err.message)) {
              problems.push(`${name}: the refusal leaks internals: ${err.message}`);
            }
          } else {
            outcome = `crashed: ${err instanceof Error ? err.name : 'non-error'}`;
            problems.push(`${name}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
          }
        }
        const ms = performance.now() - started;
        if (ms > slowest.ms) slowest = { name, ms };
        if (ms > PER_FILE_LIMIT_MS) problems.push(`${name}: took ${Math.round(ms)} ms`);
        count(outcome, name);
      }
      await Promise.all(checks);

      const rows = [...outcomes].sort((a, b) => b[1].length - a[1].length);
      const width = Math.max(...rows.map(([o]) => o.length));
      // CORPUS_LIST=1 also names the files of every outcome but plain signing.
      const list = process.env.CORPUS_LIST === '1';
      console.log(
        [
          `corpus: ${files.length} files; slowest ${slowest.name} ${Math.round(slowest.ms)} ms; ` +
            `${inheritedCheckFailures} signed files fail qpdf --check as their inputs do`,
          ...rows.flatMap(([o, names]) => [
            `${o.padEnd(width)}  ${String(names.length).padStart(4)}`,
            ...(list && o !== 'signed' ? names.map((n) => `    ${n}`) : []),
          ]),
        ].join('\n'),
      );
      expect(problems).toEqual([]);
    },
  );
});
