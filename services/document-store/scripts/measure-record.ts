/**
 * CPU the document-store process spends per `document.record`, outbox relay included.
 *
 *   NATS_URL=… DATABASE_URL=… npx tsx services/document-store/scripts/measure-record.ts \
 *     [--records 1000] [--concurrency 8] [--rate 0] [--warmup 200] [--cpu-prof DIR]
 *
 * Starts the service as its own Node process, exactly as in production (`node --import tsx
 * src/main.ts`), on a fresh database and bus prefix; sends warm-up records, then `--records` more,
 * `--concurrency` at a time (and no faster than `--rate` a second when given), waits until the relay
 * has published every outbox row, and prints the service's CPU time (user and system, from /proc)
 * divided by the number of records. `--cpu-prof DIR` writes a V8 CPU profile of the service there
 * when it stops. `OUTBOX_*` and `DB_*` variables are passed on to the service, to compare settings;
 * `MEASURE_ROOT` points at another copy of the service directory (say, an earlier version) to measure
 * that instead. The machine's other load shows in the figures: compare runs made side by side.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { connectBus } from '@esign/bus';
import { DocumentRecord, type TRecordDocumentRequest } from '@esign/contracts';
import { newAuditId } from '@esign/ids';
import { createLogger } from '@esign/telemetry';
import { createTestDatabase, testNatsUrl, uniqueBusPrefix } from '@esign/testing';
import pg from 'pg';

const { values: args } = parseArgs({
  options: {
    records: { type: 'string', default: '1000' },
    concurrency: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '200' },
    /** Records per second to send at (0: as fast as `--concurrency` allows). */
    rate: { type: 'string', default: '0' },
    'cpu-prof': { type: 'string' },
  },
});
const RECORDS = Number(args.records);
const CONCURRENCY = Number(args.concurrency);
const WARMUP = Number(args.warmup);
const RATE = Number(args.rate);
const SERVICE_ROOT = process.env.MEASURE_ROOT || fileURLToPath(new URL('..', import.meta.url));

/** User and system CPU time of a process so far, in ms (clock ticks are 1/100 s on Linux). */
const cpuMs = (pid: number): { user: number; system: number } => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
};

const freePort = async (): Promise<number> => {
  const server = createServer().listen(0);
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A request shaped like the gateway's after a one-page sign: three audit events from the signer. */
const request = (): TRecordDocumentRequest => {
  const now = new Date().toISOString();
  const hash = `sha256:${randomUUID().replace(/-/g, '').repeat(2)}`;
  return {
    accountId: randomUUID(),
    auditId: newAuditId(),
    fileName: 'contract.pdf',
    signerName: 'Ada Lovelace',
    signerEmail: 'ada@example.com',
    ipAddress: '203.0.113.7',
    userAgent: 'measure-record',
    signedAt: now,
    fileHash: hash,
    originalHash: hash,
    objectKey: `signed/${randomUUID()}.pdf`,
    size: 23_456,
    pageCount: 2,
    events: [
      {
        event: 'document.uploaded',
        timestamp: now,
        details: { fileName: 'contract.pdf', kind: 'pdf', size: 12_345, originalHash: hash },
      },
      { event: 'signature.applied', timestamp: now, details: { mode: 'type', signatures: 1, pages: '0' } },
      {
        event: 'document.sealed',
        timestamp: now,
        details: {
          fileHash: hash,
          certificateSha256: hash,
          signatureFormat: 'ETSI.CAdES.detached',
          pageCount: 2,
        },
      },
    ],
  };
};

const natsUrl = await testNatsUrl();
const database = await createTestDatabase('docs_measure');
const prefix = uniqueBusPrefix('measure');
const healthPort = await freePort();
const nodeArgs = args['cpu-prof'] ? ['--cpu-prof', '--cpu-prof-dir', args['cpu-prof']] : [];
const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'src/main.ts'], {
  cwd: SERVICE_ROOT,
  env: {
    PATH: process.env.PATH ?? '',
    NODE_ENV: 'development',
    LOG_LEVEL: 'info',
    NATS_URL: natsUrl,
    BUS_PREFIX: prefix,
    DATABASE_URL: database.url,
    HEALTH_PORT: String(healthPort),
    // Tuning knobs to compare, e.g. OUTBOX_COALESCE_MS=100.
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => /^(OUTBOX|DB)_/.test(key))),
  },
  stdio: ['ignore', 'inherit', 'inherit'],
});
const db = new pg.Client({ connectionString: database.url });
const bus = await connectBus({
  url: natsUrl,
  name: 'measure-record',
  prefix,
  logger: createLogger({ service: 'measure-record', level: 'error' }),
  timeoutMs: 30_000,
});
try {
  for (;;) {
    if (child.exitCode !== null) throw new Error('document-store exited during start-up');
    const ready = await fetch(`http://127.0.0.1:${healthPort}/readyz`).catch(() => undefined);
    if (ready?.ok) break;
    await sleep(100);
  }
  await db.connect();
  const pid = child.pid ?? 0;

  const send = async (total: number) => {
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < total) {
          const n = next;
          next += 1;
          // Paced: record n starts no earlier than n / RATE seconds in, as requests arrive in production.
          if (RATE > 0) await sleep(started + (n * 1000) / RATE - performance.now());
          await bus.request(DocumentRecord, request());
        }
      }),
    );
    // The relay's work belongs to the records too: wait until every row is out.
    for (;;) {
      const { rows } = await db.query<{ n: string }>(
        'select count(*) as n from documents.outbox where published_at is null',
      );
      if (rows[0]?.n === '0') return;
      await sleep(5);
    }
  };

  await send(WARMUP);
  await sleep(300);
  const cpuBefore = cpuMs(pid);
  const started = performance.now();
  await send(RECORDS);
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = cpuMs(pid);
  const user = cpuAfter.user - cpuBefore.user;
  const system = cpuAfter.system - cpuBefore.system;
  const cpu = user + system;
  const { rows } = await db.query<{ n: string }>('select count(*) as n from documents.documents');
  process.stdout.write(
    [
      `records: ${RECORDS} (+${WARMUP} warm-up) at concurrency ${CONCURRENCY}` +
        `${RATE > 0 ? `, paced to ${RATE}/s` : ''}; stored: ${rows[0]?.n ?? '?'}`,
      `wall: ${seconds.toFixed(2)} s (${(RECORDS / seconds).toFixed(0)} records/s)`,
      `document-store CPU: ${cpu} ms (user ${user}, system ${system}) = ${(cpu / RECORDS).toFixed(2)} ms per record`,
      '',
    ].join('\n'),
  );
} finally {
  child.kill('SIGTERM');
  if (child.exitCode === null) await once(child, 'exit');
  await bus.drain();
  await db.end().catch(() => undefined);
  await sleep(200);
  await database.drop();
}
