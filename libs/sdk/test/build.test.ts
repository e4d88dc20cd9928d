import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { parse } from 'acorn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, signedPdf, startLocalServer, type LocalServer } from './local-server.js';

const run = promisify(execFile);
const SDK_DIR = fileURLToPath(new URL('..', import.meta.url));
const TSC = createRequire(import.meta.url).resolve('typescript/bin/tsc');

/**
 * The package as it is published: `tsc -p tsconfig.build.json` into a scratch copy of the package
 * (package.json + dist/), installed as node_modules/@esign/sdk beside a script that imports it.
 */
let scratch = '';
let dist = '';
let server: LocalServer | undefined;

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'esign-sdk-build-'));
  const pkg = join(scratch, 'node_modules', '@esign', 'sdk');
  dist = join(pkg, 'dist');
  await mkdir(pkg, { recursive: true });
  await run(process.execPath, [TSC, '-p', join(SDK_DIR, 'tsconfig.build.json'), '--outDir', dist]);
  // Nothing else is installed beside it: the package has no runtime dependencies.
  await cp(join(SDK_DIR, 'package.json'), join(pkg, 'package.json'));
}, 120_000);

afterAll(async () => {
  await server?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const jsFilesOf = async (dir: string): Promise<string[]> =>
  (await readdir(dir, { recursive: true })).filter((f) => f.endsWith('.js')).map((f) => join(dir, f));

describe('the built SDK', () => {
  it('has no runtime dependencies, is ES2022 syntax (Node 18) and imports only node: built-ins and its own files', async () => {
    const manifest = JSON.parse(await readFile(join(SDK_DIR, 'package.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies', 'bundleDependencies']) {
      expect(manifest[field], field).toBeUndefined();
    }
    const files = await jsFilesOf(dist);
    expect(files.length).toBeGreaterThanOrEqual(6);

    for (const file of files) {
      const program = parse(await readFile(file, 'utf8'), { ecmaVersion: 2022, sourceType: 'module' });
      const specifiers = program.body.flatMap((node) =>
        (node.type === 'ImportDeclaration' ||
          node.type === 'ExportNamedDeclaration' ||
          node.type === 'ExportAllDeclaration') &&
        node.source
          ? [String(node.source.value)]
          : [],
      );
      for (const specifier of specifiers) expect(specifier, file).toMatch(/^(node:|\.\.?\/)/);
    }
  });

  it('would be caught using syntax newer than ES2022 (the check works)', () => {
    // The RegExp v flag is ES2024.
    expect(() =>
      parse('export const letters = /[\\p{L}--[a-z]]/v;', { ecmaVersion: 2022, sourceType: 'module' }),
    ).toThrow();
  });

  it('ships type declarations for its exports', async () => {
    const index = await readFile(join(dist, 'index.d.ts'), 'utf8');
    expect(index).toContain('EsignClient');
    expect(await readFile(join(dist, 'generated', 'api.d.ts'), 'utf8')).toContain('interface components');
  });

  it('loads under node from its package exports and signs and lists through a server', async () => {
    server = await startLocalServer((req, res) =>
      req.url === '/api/v1/sign'
        ? signedPdf(res)
        : json(res, 200, { documents: [], total: 0, page: 1, pages: 0 }),
    );
    const script = join(scratch, 'smoke.mjs');
    await writeFile(
      script,
      `import { EsignClient, EsignApiError, verifyWebhook } from '@esign/sdk';
import { createHmac } from 'node:crypto';
const key = Buffer.alloc(32, 1);
const secret = 'whsec_' + key.toString('base64');
const hook = JSON.stringify({ id: 'evt_1', type: 'webhook.test', timestamp: new Date().toISOString(), data: {} });
const hookHeaders = { 'webhook-id': 'evt_1', 'webhook-timestamp': String(Math.floor(Date.now() / 1000)) };
hookHeaders['webhook-signature'] = 'v1,' + createHmac('sha256', key).update('evt_1.' + hookHeaders['webhook-timestamp'] + '.' + hook).digest('base64');
const verified = verifyWebhook(hook, hookHeaders, secret).type;
const esign = new EsignClient({ apiKey: 'svc_live_smoke', baseUrl: process.argv[2] });
const signed = await esign.signDocument({ file: Buffer.from('%PDF-1.4\\n'), signerName: 'A', signerEmail: 'a@example.com' });
const list = await esign.listDocuments({ limit: 5 });
console.log(JSON.stringify({ verified, auditId: signed.auditId, bytes: signed.bytes.length, list, errorName: new EsignApiError({ status: 400, message: 'x', retryAfter: undefined, body: '', operationId: 'x', headers: new Headers() }).name }));
`,
    );

    const { stdout } = await run(process.execPath, [script, server.baseUrl], { cwd: scratch });

    expect(JSON.parse(stdout)).toEqual({
      verified: 'webhook.test',
      auditId: 'ESG-AAAA-BBBB-CCCC',
      bytes: 22,
      list: { documents: [], total: 0, page: 1, pages: 0 },
      errorName: 'EsignApiError',
    });
    expect(server.requests.map((r) => r.url)).toEqual(['/api/v1/sign', '/api/v1/documents?limit=5']);
  });
});
