/**
 * `pnpm bench:floor`: the least any implementation of this architecture can spend around the signer.
 *
 * Three bare processes make the same hops as the real sign path — HTTP in, PUT to object storage,
 * NATS request to a signer that GETs the upload, signs it with the real signer code and PUTs the
 * result, NATS request to a store that INSERTs one row in Postgres, GET of the signed object, HTTP
 * out — and nothing else: no multipart parsing, validation, auth, logging, schemas, audit events,
 * outbox or upload clean-up. Next to in-process signing, it shows what the hops alone cost on this
 * machine, whatever the services do. It also times one 20 MB PUT and GET to object storage from a
 * separate process: the sign path makes four such transfers plus the client's upload and download.
 * `--warmup N` (50): requests before the measured 300, in-process and through the hops alike (50 is
 * a stack just started, as `bench:sign` warms one; 3000 compares with `bench:sign --warmup 3000`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { connect } from 'nats';
import pg from 'pg';
import { createSigner, type SignInput } from '@esign/pdf-signer';
import {
  createTestDatabase,
  makeLargePdf,
  makePdf,
  makePng,
  startTestS3,
  testNatsUrl,
  uniqueBusPrefix,
} from '@esign/testing';
import { cpuMs } from './proc';
import { SERVICE_SIGNING } from './service-signing';

const REQUESTS = 300;
const CONCURRENCY = 8;
const role = process.argv[2];
const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};

const agent = new Agent({ keepAlive: true });
/** One HTTP exchange; the response body is read into one buffer of its announced length. */
const http = (url: string, method: string, body?: Buffer | IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const length = Buffer.isBuffer(body) ? body.length : body?.headers['content-length'];
    const req = request(
      url,
      { method, agent, headers: length === undefined ? {} : { 'Content-Length': length } },
      (res: IncomingMessage) => {
        const out = Buffer.allocUnsafe(Number(res.headers['content-length'] ?? 0));
        let offset = 0;
        res.on('data', (c: Buffer) => (offset += c.copy(out, offset)));
        res.on('end', () =>
          (res.statusCode ?? 500) < 300
            ? resolve(out.subarray(0, offset))
            : reject(new Error(`${method} ${url}`)),
        );
      },
    );
    req.on('error', reject);
    if (Buffer.isBuffer(body) || body === undefined) req.end(body);
    else body.pipe(req);
  });

/** A GET whose body is streamed on to `res`. */
const relay = (url: string, res: ServerResponse): Promise<void> =>
  new Promise((resolve, reject) => {
    request(url, { agent }, (from) => {
      res.writeHead(200, {
        'Content-Type': 'application/pdf',
        'Content-Length': from.headers['content-length'],
      });
      from.pipe(res);
      from.on('end', resolve);
    })
      .on('error', reject)
      .end();
  });

/**
 * The same signing in the bare signer and in-process: a drawn signature at one position, as the
 * pdf-signer service signs it with its defaults.
 */
const signInput = (bytes: Buffer, pngBase64: string): SignInput => ({
  bytes,
  kind: 'pdf',
  fileName: 'bench.pdf',
  signature: { mode: 'draw', imageBase64: pngBase64 },
  positions: [{ x: 50, y: 85, page: 0, width: 25 }],
  signer: { name: 'Bench Signer', email: 'bench@example.com', ipAddress: '127.0.0.1', userAgent: 'bench' },
  receivedAt: new Date().toISOString(),
  ...SERVICE_SIGNING,
});

const natsFor = () => connect({ servers: env('NATS_URL') });

const gateway = async () => {
  const nc = await natsFor();
  const s3 = env('S3_BUCKET_URL');
  const prefix = env('PREFIX');
  let n = 0;
  const server = createServer((req, res) => {
    void (async () => {
      // Streamed on as it arrives (no multipart to parse here, so the length is the request's).
      const key = `uploads/${process.pid}-${(n += 1)}`;
      await http(`${s3}/${key}`, 'PUT', req);
      const signedKey = (await nc.request(`${prefix}sign`, key, { timeout: 10_000 })).string();
      await nc.request(`${prefix}record`, signedKey, { timeout: 10_000 });
      await relay(`${s3}/${signedKey}`, res);
    })().catch(() => res.writeHead(500).end());
  });
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    process.stdout.write(`${typeof address === 'object' && address ? address.port : 0}\n`);
  });
};

const signerRole = async () => {
  const nc = await natsFor();
  const s3 = env('S3_BUCKET_URL');
  const signer = await createSigner();
  const png = readFileSync(env('PNG_FILE')).toString('base64');
  nc.subscribe(`${env('PREFIX')}sign`, {
    queue: 'signer',
    callback: (_err, msg) => {
      void (async () => {
        const bytes = await http(`${s3}/${msg.string()}`, 'GET');
        const result = await signer.sign(signInput(bytes, png));
        const signedKey = `signed/${result.auditId}.pdf`;
        await http(`${s3}/${signedKey}`, 'PUT', result.bytes);
        msg.respond(signedKey);
      })();
    },
  });
  process.stdout.write('ready\n');
};

const store = async () => {
  const nc = await natsFor();
  const pool = new pg.Pool({ connectionString: env('DATABASE_URL'), max: 4 });
  nc.subscribe(`${env('PREFIX')}record`, {
    callback: (_err, msg) => {
      void pool
        .query('insert into floor_records (object_key, signed_at) values ($1, now())', [msg.string()])
        .then(() => msg.respond('ok'));
    },
  });
  process.stdout.write('ready\n');
};

/** Median of `fn`'s wall time over eight runs, in ms. */
const p50 = async (fn: () => Promise<unknown>) => {
  const times: number[] = [];
  for (let i = 0; i < 8; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  return times.sort((a, b) => a - b)[4] ?? NaN;
};

/** One 20 MB object written and read back, as the signer does with every upload and signed PDF. */
const transfer = async () => {
  const s3 = env('S3_BUCKET_URL');
  const bytes = Buffer.alloc(20 * 1024 * 1024, 7);
  let n = 0;
  const put = await p50(() => http(`${s3}/transfer/${(n += 1)}`, 'PUT', bytes));
  const get = await p50(() => http(`${s3}/transfer/${n}`, 'GET'));
  process.stdout.write(`${put.toFixed(1)} ${get.toFixed(1)}\n`);
  agent.destroy();
};

const driver = async () => {
  // Requests before the measured 300, in-process and through the hops alike: 50 by default (a
  // process just started, as `bench:sign` warms a stack), 3000 to compare with a warm stack.
  const { values: args } = parseArgs({ options: { warmup: { type: 'string', default: '50' } } });
  const warmup = Number(args.warmup);
  if (!Number.isInteger(warmup) || warmup < 0)
    throw new Error(`--warmup: a whole number, not ${args.warmup}`);
  const pdf = await makePdf({ pages: 1 });
  const large = await makeLargePdf(20 * 1024 * 1024);
  const png = await makePng({ width: 300, height: 100 });
  const pngFile = `/tmp/floor-${process.pid}.png`;
  const { writeFileSync, rmSync } = await import('node:fs');
  writeFileSync(pngFile, png);
  const natsUrl = await testNatsUrl();
  const db = await createTestDatabase('esign_floor');
  const s3 = await startTestS3();
  // A bucket for the run (the embedded server accepts unsigned requests).
  await http(`${s3.endpoint}/floor`, 'PUT');
  const setup = new pg.Client({ connectionString: db.url });
  await setup.connect();
  await setup.query(
    'create table floor_records (id bigserial primary key, object_key text not null, signed_at timestamptz not null)',
  );
  await setup.end();
  const childEnv = {
    ...process.env,
    NATS_URL: natsUrl,
    DATABASE_URL: db.url,
    S3_BUCKET_URL: `${s3.endpoint}/floor`,
    PREFIX: uniqueBusPrefix('floor'),
    PNG_FILE: pngFile,
  };
  const self = fileURLToPath(import.meta.url);
  const children: ChildProcess[] = [];
  const start = (name: string) =>
    new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', self, name], {
        env: childEnv,
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      children.push(child);
      child.stdout?.once('data', (d: Buffer) => resolve(d.toString().trim()));
      child.once('exit', (code) => reject(new Error(`${name} exited with ${code}`)));
    });
  try {
    const [port] = await Promise.all([start('gateway'), start('signer'), start('store')]);
    const url = `http://127.0.0.1:${port}/`;
    const local = await createSigner();
    const signLocal = (bytes = pdf) => local.sign(signInput(bytes, png.toString('base64')));
    const run = async (fn: () => Promise<unknown>) => {
      let next = 0;
      const t = performance.now();
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < REQUESTS) {
            next += 1;
            await fn();
          }
        }),
      );
      return REQUESTS / ((performance.now() - t) / 1000);
    };
    for (let i = 0; i < warmup; i++) await signLocal();
    for (let i = 0; i < warmup; i++) await http(url, 'POST', pdf);
    const inProcess = await run(signLocal);
    const pids = [process.pid, ...children.map((c) => c.pid ?? 0)];
    const before = pids.map(cpuMs);
    const floor = await run(() => http(url, 'POST', pdf));
    const cpu = pids.map((pid, i) => (cpuMs(pid) - (before[i] ?? 0)) / REQUESTS);
    await signLocal(large);
    await http(url, 'POST', large);
    const largeLocal = await p50(() => signLocal(large));
    const largeFloor = await p50(() => http(url, 'POST', large));
    const [put, get] = (await start('transfer')).split(' ');
    const names = ['client + S3 server', 'gateway', 'signer', 'store'];
    process.stdout.write(
      [
        '',
        `after ${warmup} requests of warm-up each`,
        `1 page, in-process (c=${CONCURRENCY}):            ${inProcess.toFixed(1)} req/s`,
        `1 page, bare hops around it (c=${CONCURRENCY}):   ${floor.toFixed(1)} req/s`,
        `ratio: ${(floor / inProcess).toFixed(2)}`,
        `20 MB p50, in-process: ${largeLocal.toFixed(1)} ms, bare hops: ${largeFloor.toFixed(1)} ms, ratio ${(largeFloor / largeLocal).toFixed(2)}`,
        `one 20 MB object between two processes through object storage: PUT ${put} ms, GET ${get} ms (p50)`,
        'CPU per 1-page request by process:',
        ...names.map((name, i) => `  ${name.padEnd(20)} ${(cpu[i] ?? 0).toFixed(2).padStart(6)} ms`),
        '',
      ].join('\n'),
    );
  } finally {
    for (const child of children) child.kill();
    agent.destroy();
    await s3.stop();
    await db.drop();
    rmSync(pngFile, { force: true });
  }
};

const roles: Record<string, () => Promise<void>> = { gateway, signer: signerRole, store, transfer };
await (roles[role ?? ''] ?? driver)();
