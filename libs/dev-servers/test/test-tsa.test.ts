import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestTsa, type TestTsa } from '../src/test-tsa';

const run = promisify(execFile);

const post = (url: string, body: Buffer) =>
  new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/timestamp-query' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });

let dir: string;
let sut: TestTsa;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'test-tsa-test-'));
  await writeFile(join(dir, 'data'), 'the bytes being timestamped');
  await run('openssl', ['ts', '-query', '-data', 'data', '-sha256', '-cert', '-out', 'q.tsq'], { cwd: dir });
  sut = await startTestTsa();
}, 60_000);

afterAll(async () => {
  await sut.stop();
  await rm(dir, { recursive: true, force: true });
});

const query = () => readFile(join(dir, 'q.tsq'));

describe('startTestTsa', () => {
  it('answers a query with a token that openssl verifies against its CA', async () => {
    const reply = await post(sut.url, await query());
    expect(reply.status).toBe(200);
    await writeFile(join(dir, 'r.tsr'), reply.body);
    const { stdout } = await run(
      'openssl',
      [
        'ts',
        '-verify',
        '-in',
        'r.tsr',
        '-data',
        'data',
        '-CAfile',
        sut.caCertFile,
        '-untrusted',
        sut.tsaCertFile,
      ],
      { cwd: dir },
    );
    expect(stdout).toContain('Verification: OK');
    expect(sut.requests()).toBe(1);
  });

  it('fails on demand: a rejection, random bytes, a dropped connection', async () => {
    sut.setMode('reject');
    expect((await post(sut.url, await query())).body).toEqual(
      Buffer.from([0x30, 0x05, 0x30, 0x03, 0x02, 0x01, 0x02]),
    );
    sut.setMode('garbage');
    expect((await post(sut.url, await query())).body).toHaveLength(300);
    sut.setMode('down');
    await expect(post(sut.url, await query())).rejects.toMatchObject({ code: 'ECONNRESET' });
    sut.setMode('ok');
    expect((await post(sut.url, await query())).status).toBe(200);
  });
});
