import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { DocumentGet, DocumentRecord, DocumentSigned } from '@esign/contracts';
import { freePort } from '@esign/stack';
import { DeliverPolicy } from 'nats';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { createTestBed, recordRequest, type TestBed } from './helpers';

/**
 * Issue 27: document-store exited when Postgres went away (`Unhandled 'error' event` on a pg Client a
 * sweep or a transaction held). The store runs here as its own process, exactly as in a container,
 * and its database's connections are killed from the server side again and again, some of the times
 * with the database refusing new ones for a while, under requests, with the sweeps and the relay
 * polling fast so that some connection is always checked out when it dies. The process must live
 * through it (same pid), answer again, publish what is recorded afterwards, and say so in a few lines.
 */

const SERVICE_DIR = fileURLToPath(new URL('..', import.meta.url));
const FAULTS = 20;
/** What meets an outage in the store, each with its own outage log (`dependency` in its lines). */
const COMPONENTS = [
  'database', // the pool
  'the database is unavailable', // requests, by the description they are answered with
  'database (outbox relay)',
  'database (signing-request sweep)',
  'database (envelope sweep)',
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let bed: TestBed;
let admin: pg.Client;
let child: ChildProcess;
let exited: { code: number | null; signal: string | null } | undefined;
const lines: string[] = [];

/** The store's own connections, ended by the server (`pg_terminate_backend`). */
const terminateBackends = async (): Promise<number> => {
  const { rows } = await admin.query<{ n: number }>(
    `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
     where datname = $1 and application_name = 'document-store'`,
    [new URL(bed.database.url).pathname.slice(1)],
  );
  return rows[0]?.n ?? 0;
};

beforeAll(async () => {
  bed = await createTestBed('faults');
  // On the server's own database: `setAvailable(false)` ends every connection to the test database.
  const server = new URL(bed.database.url);
  server.pathname = '/postgres';
  admin = new pg.Client({ connectionString: server.toString(), application_name: 'faults-test' });
  await admin.connect();
  const healthPort = await freePort();
  child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: SERVICE_DIR,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: bed.database.url,
      NATS_URL: bed.config.NATS_URL,
      BUS_PREFIX: bed.config.BUS_PREFIX,
      HEALTH_PORT: String(healthPort),
      // Always something checked out of the pool when a connection dies: a sweep's lock session, a
      // relay pass, a request's transaction.
      OUTBOX_POLL_MS: '50',
      SIGNING_SWEEP_INTERVAL_MS: '20',
      // No object storage here.
      SIGNED_SWEEP_INTERVAL_MS: '0',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.once('exit', (code, signal) => (exited = { code, signal }));
  for (const stream of [child.stdout, child.stderr]) {
    if (stream) createInterface({ input: stream }).on('line', (line) => lines.push(line));
  }
  await vi.waitFor(
    async () => {
      if (exited) throw new Error(`document-store exited during start-up: ${lines.slice(-20).join('\n')}`);
      const res = await fetch(`http://127.0.0.1:${healthPort}/readyz`);
      if (!res.ok) throw new Error('not ready');
    },
    { timeout: 30_000, interval: 100 },
  );
}, 60_000);

afterAll(async () => {
  if (process.env.FAULTS_LOG)
    (await import('node:fs')).writeFileSync(process.env.FAULTS_LOG, lines.join('\n'));
  if (child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
  }
  await admin.end();
  await bed.close();
}, 30_000);

const logged = () =>
  lines.flatMap((line) => {
    try {
      return [JSON.parse(line) as { level?: string; msg?: string; err?: unknown; dependency?: unknown }];
    } catch {
      return [];
    }
  });

describe('document-store when Postgres goes away', () => {
  it('lives through connections killed from the server side, answers again and still publishes', async () => {
    const pid = child.pid;
    let answered = 0;
    let refused = 0;
    for (let fault = 0; fault < FAULTS; fault++) {
      // Requests under way while their connections die; an `unavailable` answer is fine meanwhile.
      const requests = Array.from({ length: 5 }, () =>
        bed.client.request(DocumentRecord, recordRequest(), { timeoutMs: 10_000 }).then(
          () => (answered += 1),
          () => (refused += 1),
        ),
      );
      await sleep(10 + (fault % 4) * 15);
      if (fault % 2 === 0) {
        await terminateBackends();
      } else {
        // As a restart looks from the client side: connections ended, new ones refused for a while.
        await bed.database.setAvailable(false);
        await sleep(150);
        await bed.database.setAvailable(true);
      }
      await Promise.all(requests);
      await sleep(50);
    }

    expect(exited, lines.slice(-30).join('\n')).toBeUndefined();
    expect(child.pid).toBe(pid);
    expect(answered + refused).toBe(FAULTS * 5);

    // Answers again once the database is back.
    const jsm = await bed.client.connection.jetstreamManager();
    const before = (await jsm.streams.info(bed.client.streamName)).state.last_seq;
    const request = recordRequest();
    const { id } = await vi.waitFor(() => bed.client.request(DocumentRecord, request), {
      timeout: 10_000,
      interval: 100,
    });
    await expect(
      bed.client.request(DocumentGet, { auditId: request.auditId, accountId: request.accountId }),
    ).resolves.toMatchObject({ auditId: request.auditId });

    // The outbox still publishes: the event of the record made after the faults reaches the stream.
    const consumer = await bed.client.jetstream.consumers.get(bed.client.streamName, {
      // One subject as a string: a list needs nats-server 2.10.
      filterSubjects: bed.client.wire(DocumentSigned.subject),
      deliver_policy: DeliverPolicy.StartSequence,
      opt_start_seq: before + 1,
    });
    const deadline = Date.now() + 15_000;
    let published = false;
    while (!published && Date.now() < deadline) {
      const msg = await consumer.next({ expires: 1000 });
      published = msg?.json<{ documentId?: string }>().documentId === id;
    }
    expect(published, 'the event of the record made after the faults was published').toBe(true);

    expect(exited).toBeUndefined();
    expect(lines.some((line) => line.includes("Unhandled 'error' event"))).toBe(false);
    // One line when the database goes and one when it is back, per outage and per component: not a
    // warning with a stack for each request or poll that met it. The pool's connections die one by one
    // and a new one is made between two of them: that is still one outage (it read as several when
    // an outage ended at the first success, issue 27's flaky bound).
    const complaints = logged().filter((entry) => entry.level === 'warn' || entry.level === 'error');
    const byComponent = new Map<string, number>();
    for (const entry of complaints) {
      const component = String(entry.dependency);
      byComponent.set(component, (byComponent.get(component) ?? 0) + 1);
    }
    expect(COMPONENTS).toEqual(expect.arrayContaining([...byComponent.keys()]));
    for (const [component, warnings] of byComponent) expect(warnings, component).toBeLessThanOrEqual(FAULTS);
    // The outage lines carry the error's message; a stack would mean a failure not seen as an outage.
    expect(complaints.filter((entry) => entry.err !== undefined)).toEqual([]);
  }, 180_000);
});
