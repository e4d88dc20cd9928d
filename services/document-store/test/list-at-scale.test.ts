import { randomUUID } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DocumentList, DocumentRecord, type TListDocumentsRequest } from '@esign/contracts';
import { createDatabase, migrateSchema } from '@esign/db';
import { createTestDatabase, uniqueBusPrefix } from '@esign/testing';
import pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadDocumentStoreConfig } from '../src/config';
import { EXACT_COUNT_LIMIT } from '../src/db/list-documents-query';
import { schema } from '../src/db/schema';
import { startDocumentStore } from '../src/start';
import { recordRequest, test, type TestBed } from './helpers';

test.override('storeOptions', { label: 'docs_scale', config: { DB_POOL_MAX: 8 } });

let bed: TestBed;
let db: pg.Client;

type TListReply = Awaited<ReturnType<typeof list>>;
const list = (request: Partial<TListDocumentsRequest> & { accountId: string }) =>
  bed.client.request(DocumentList, { page: 1, limit: 20, sortBy: 'signed_at', sortDir: 'desc', ...request });

/** Insert `names.length` documents of an account in ONE statement (so they share `created_at`). */
const insertRows = async (
  client: pg.Client | pg.PoolClient,
  accountId: string,
  rows: readonly { fileName: string; signedAt: string }[],
) => {
  await client.query(
    `insert into documents.documents (id, account_id, audit_id, file_name, signer_name, signer_email,
       ip_address, user_agent, signed_at, file_hash, original_hash, object_key, size, page_count)
     select gen_random_uuid(), $1, 'TEST-' || upper(substr(h, 1, 4) || '-' || substr(h, 5, 4) || '-' || substr(h, 9, 4)),
       r.file_name, 'S',
       's@example.com', '203.0.113.1', 'test', r.signed_at, 'sha256:' || repeat('a', 64),
       'sha256:' || repeat('b', 64), 'signed/x.pdf', 1, 1
     from jsonb_to_recordset($2::jsonb) as r(file_name text, signed_at timestamptz),
       lateral (select md5(gen_random_uuid()::text || r.file_name) as h) as random`,
    [accountId, JSON.stringify(rows.map((r) => ({ file_name: r.fileName, signed_at: r.signedAt })))],
  );
};

const countedInDb = async (accountId: string) => {
  const { rows } = await db.query<{ actual: number; counted: number }>(
    `select (select count(*)::int from documents.documents where account_id = $1) as actual,
            (select coalesce(sum(count), 0)::int from documents.account_document_counts where account_id = $1) as counted`,
    [accountId],
  );
  return rows[0];
};

test.beforeAll(({ bed: fileBed, db: fileDb }) => {
  bed = fileBed;
  db = fileDb;
});

describe('the account count', () => {
  it('stays exact under concurrent records of one account, spread over several counter rows', async () => {
    const accountId = randomUUID();
    const requests = Array.from({ length: 120 }, () => recordRequest({ accountId }));
    // 24 in flight at once over the store's 8 pooled connections.
    for (let i = 0; i < requests.length; i += 24) {
      await Promise.all(requests.slice(i, i + 24).map((r) => bed.client.request(DocumentRecord, r)));
    }
    // A repeated audit ID inserts nothing and counts nothing.
    const repeat = requests[0];
    if (!repeat) throw new Error('no request');
    await expect(bed.client.request(DocumentRecord, repeat)).rejects.toMatchObject({ code: 'conflict' });

    expect(await countedInDb(accountId)).toEqual({ actual: 120, counted: 120 });
    const { rows: slots } = await db.query<{ n: number }>(
      'select count(*)::int as n from documents.account_document_counts where account_id = $1',
      [accountId],
    );
    expect(slots[0]?.n).toBeGreaterThan(1);
    expect(await list({ accountId, limit: 7 })).toMatchObject({ total: 120, totalExact: true, pages: 18 });
  });

  it('stays exact with concurrent bulk inserts and deletes in open transactions', async () => {
    const accountId = randomUUID();
    const clients = await Promise.all(
      Array.from({ length: 4 }, async () => {
        const c = new pg.Client({ connectionString: bed.database.url });
        await c.connect();
        return c;
      }),
    );
    try {
      await Promise.all(
        clients.map(async (c, i) => {
          await c.query('begin');
          await insertRows(
            c,
            accountId,
            Array.from({ length: 50 }, (_, j) => ({
              fileName: `bulk ${i}-${j}.pdf`,
              signedAt: '2025-01-01T00:00:00Z',
            })),
          );
          // The last client rolls back: its rows and its count go together.
          await c.query(i === 3 ? 'rollback' : 'commit');
        }),
      );
      await db.query(`delete from documents.documents where account_id = $1 and file_name like 'bulk 0-%'`, [
        accountId,
      ]);
    } finally {
      await Promise.all(clients.map((c) => c.end()));
    }
    expect(await countedInDb(accountId)).toEqual({ actual: 100, counted: 100 });
    expect(await list({ accountId })).toMatchObject({ total: 100, totalExact: true, pages: 5 });
  });
});

describe('search', () => {
  const accountId = randomUUID();
  beforeAll(async () => {
    await insertRows(
      db,
      accountId,
      [
        '100% final.pdf',
        '100 final.pdf',
        'a_b.pdf',
        'axb.pdf',
        'back\\slash.pdf',
        'backslash.pdf',
        'Rental LEASE 2025.pdf',
      ].map((fileName) => ({ fileName, signedAt: '2025-02-01T00:00:00Z' })),
    );
  });

  const found = async (search: string) =>
    (await list({ accountId, search, sortBy: 'file_name', sortDir: 'asc' })).documents.map((d) => d.fileName);

  it('matches substrings case-insensitively and takes % _ \\ literally', async () => {
    expect(await found('lease 20')).toEqual(['Rental LEASE 2025.pdf']);
    expect(await found('ENTAL')).toEqual(['Rental LEASE 2025.pdf']);
    expect(await found('%')).toEqual(['100% final.pdf']);
    expect(await found('0% f')).toEqual(['100% final.pdf']);
    expect(await found('_')).toEqual(['a_b.pdf']);
    expect(await found('a_b')).toEqual(['a_b.pdf']);
    expect(await found('\\')).toEqual(['back\\slash.pdf']);
    expect(await found('k\\s')).toEqual(['back\\slash.pdf']);
    expect(await found('nothing like it')).toEqual([]);
  });

  it('has a valid trigram index that the planner uses for a substring search', async () => {
    const { rows } = await db.query<{ valid: boolean; def: string }>(
      `select i.indisvalid as valid, pg_get_indexdef(i.indexrelid) as def from pg_index i
         join pg_class c on c.oid = i.indexrelid where c.relname = 'documents_file_name_trgm_idx'`,
    );
    expect(rows.map((r) => r.valid)).toEqual([true]);
    expect(rows[0]?.def).toContain('USING gin (file_name gin_trgm_ops)');
    await db.query('begin');
    try {
      // This table is small enough for any index to do; leave the planner only the trigram index.
      await db.query('set local enable_seqscan = off');
      await db.query(
        `drop index documents.documents_account_file_name_idx, documents.documents_account_signed_at_idx,
           documents.documents_account_created_at_idx, documents.documents_account_idempotency_key_idx`,
      );
      const plan = await db.query<{ 'QUERY PLAN': string }>(
        `explain select id from documents.documents where file_name ilike '%lease 20%'`,
      );
      expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toContain('documents_file_name_trgm_idx');
    } finally {
      await db.query('rollback');
    }
  });
});

describe('totals past the exact bound', () => {
  it('counts filtered matches exactly up to the bound, then says the total is an estimate', async () => {
    const accountId = randomUUID();
    const rows = Array.from({ length: EXACT_COUNT_LIMIT + 60 }, (_, i) => ({
      fileName: i < EXACT_COUNT_LIMIT + 50 ? `Invoice ${i}.pdf` : `Lease ${i}.pdf`,
      signedAt: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
    }));
    await insertRows(db, accountId, rows);
    await db.query('analyze documents.documents');

    const all = await list({ accountId, limit: 100 });
    expect(all).toMatchObject({
      total: EXACT_COUNT_LIMIT + 60,
      totalExact: true,
      pages: Math.ceil((EXACT_COUNT_LIMIT + 60) / 100),
    });
    const leases = await list({ accountId, search: 'lease' });
    expect(leases).toMatchObject({ total: 10, totalExact: true, pages: 1 });
    const invoices = await list({ accountId, search: 'invoice', limit: 100 });
    expect(invoices.totalExact).toBe(false);
    expect(invoices.total).toBeGreaterThan(EXACT_COUNT_LIMIT);
    // Never more than the account has.
    expect(invoices.total).toBeLessThanOrEqual(EXACT_COUNT_LIMIT + 60);
    expect(invoices.pages).toBe(Math.ceil(invoices.total / 100));
    const firstHour = await list({
      accountId,
      signedFrom: '2025-01-01T00:00:00.000Z',
      signedBefore: '2025-01-01T01:00:00.000Z',
    });
    expect(firstHour).toMatchObject({ total: 60, totalExact: true, pages: 3 });
  });
});

describe('keyset paging', () => {
  const accountId = randomUUID();
  let expectedIds: string[];
  beforeAll(async () => {
    // 23 documents, one statement: every created_at ties, file names and signed_at tie in groups.
    await insertRows(
      db,
      accountId,
      Array.from({ length: 23 }, (_, i) => ({
        fileName: ['b.pdf', 'a.pdf', 'C.pdf'][i % 3] ?? 'x.pdf',
        signedAt: new Date(Date.UTC(2025, 0, 1 + (i % 4))).toISOString(),
      })),
    );
    const { rows } = await db.query<{ id: string }>(
      'select id from documents.documents where account_id = $1',
      [accountId],
    );
    expectedIds = rows.map((r) => r.id).sort();
  });

  const sorts = ['signed_at', 'file_name', 'created_at'] as const;
  const dirs = ['asc', 'desc'] as const;
  for (const sortBy of sorts) {
    for (const sortDir of dirs) {
      it(`visits every document exactly once by ${sortBy} ${sortDir}, in the order of the numbered pages`, async () => {
        const visited: string[] = [];
        let reply: TListReply = await list({ accountId, limit: 4, sortBy, sortDir });
        let pages = 1;
        visited.push(...reply.documents.map((d) => d.id));
        while (reply.nextCursor !== null) {
          reply = await list({ accountId, limit: 4, sortBy, sortDir, cursor: reply.nextCursor });
          visited.push(...reply.documents.map((d) => d.id));
          pages += 1;
          expect(pages).toBeLessThan(10);
        }
        expect(pages).toBe(6);
        expect([...visited].sort()).toEqual(expectedIds);
        const numbered: string[] = [];
        for (let page = 1; page <= 6; page++) {
          numbered.push(
            ...(await list({ accountId, limit: 4, sortBy, sortDir, page })).documents.map((d) => d.id),
          );
        }
        expect(visited).toEqual(numbered);
      });
    }
  }

  it('offers a cursor on a numbered page that continues after it', async () => {
    const second = await list({ accountId, limit: 5, page: 2, sortBy: 'file_name', sortDir: 'asc' });
    const third = await list({ accountId, limit: 5, page: 3, sortBy: 'file_name', sortDir: 'asc' });
    if (!second.nextCursor) throw new Error('expected a next cursor');
    const after = await list({
      accountId,
      limit: 5,
      sortBy: 'file_name',
      sortDir: 'asc',
      cursor: second.nextCursor,
    });
    expect(after.documents).toEqual(third.documents);
    expect(after.total).toBe(23);
  });

  it('answers invalid_argument naming the cursor for a cursor that is not one of this sort', async () => {
    const { nextCursor } = await list({ accountId, limit: 4, sortBy: 'signed_at', sortDir: 'asc' });
    if (!nextCursor) throw new Error('expected a next cursor');
    const forged = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const bad = [
      'not a cursor!',
      'e30',
      nextCursor.slice(0, -3),
      forged({ s: 'signed_at', d: 'asc', k: 'yesterday', i: randomUUID() }),
      forged({ s: 'signed_at', d: 'asc', k: '2025-01-01T00:00:00.000000Z', i: 'not-a-uuid' }),
    ];
    for (const cursor of bad) {
      await expect(list({ accountId, sortBy: 'signed_at', sortDir: 'asc', cursor })).rejects.toMatchObject({
        code: 'invalid_argument',
        field: 'cursor',
      });
    }
    // Made for ascending signed_at: not valid for another order.
    for (const other of [
      { sortBy: 'signed_at', sortDir: 'desc' },
      { sortBy: 'created_at', sortDir: 'asc' },
    ] as const) {
      await expect(list({ accountId, ...other, cursor: nextCursor })).rejects.toMatchObject({
        code: 'invalid_argument',
        field: 'cursor',
      });
    }
    await expect(
      list({ accountId, sortBy: 'signed_at', sortDir: 'asc', cursor: nextCursor, page: 2 }),
    ).rejects.toMatchObject({ code: 'invalid_argument', field: 'page' });
  });
});

describe('migration 0003 on a database that already has documents', () => {
  it('backfills the counts and builds the trigram index concurrently', async () => {
    const database = await createTestDatabase('docs_migrate');
    const folder = mkdtempSync(join(tmpdir(), 'docs-migrations-'));
    try {
      // The migrations as they were before 0003.
      const source = fileURLToPath(new URL('../drizzle', import.meta.url));
      cpSync(source, folder, { recursive: true });
      const journalPath = join(folder, 'meta', '_journal.json');
      const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as { entries: { tag: string }[] };
      journal.entries = journal.entries.filter((e) => e.tag < '0003');
      writeFileSync(journalPath, JSON.stringify(journal));
      const old = createDatabase({ url: database.url, schema, applicationName: 'migration-test' });
      const accounts = [randomUUID(), randomUUID()];
      try {
        await migrateSchema({ pool: old.pool, schema: 'documents', migrationsFolder: folder });
        const client = await old.pool.connect();
        try {
          for (const [i, accountId] of accounts.entries()) {
            await insertRows(
              client,
              accountId,
              Array.from({ length: 30 + i * 15 }, (_, j) => ({
                fileName: `old ${j}.pdf`,
                signedAt: '2024-06-01T00:00:00Z',
              })),
            );
          }
        } finally {
          client.release();
        }
      } finally {
        await old.close();
      }

      const store = await startDocumentStore(
        loadDocumentStoreConfig({ ...bedEnv(), DATABASE_URL: database.url }),
      );
      try {
        const check = new pg.Client({ connectionString: database.url });
        await check.connect();
        try {
          const { rows } = await check.query<{ account_id: string; n: number }>(
            'select account_id, sum(count)::int as n from documents.account_document_counts group by 1 order by 2',
          );
          expect(rows).toEqual([
            { account_id: accounts[0], n: 30 },
            { account_id: accounts[1], n: 45 },
          ]);
          const index = await check.query<{ valid: boolean }>(
            `select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid
             where c.relname = 'documents_file_name_trgm_idx'`,
          );
          expect(index.rows).toEqual([{ valid: true }]);
          // New rows after the migration are counted by the trigger.
          await insertRows(check, accounts[0] ?? '', [
            { fileName: 'new.pdf', signedAt: '2025-01-01T00:00:00Z' },
          ]);
          const after = await check.query<{ n: number }>(
            'select sum(count)::int as n from documents.account_document_counts where account_id = $1',
            [accounts[0]],
          );
          expect(after.rows[0]?.n).toBe(31);
        } finally {
          await check.end();
        }
      } finally {
        await store.stop();
      }
    } finally {
      rmSync(folder, { recursive: true, force: true });
      await database.drop();
    }
  });

  it('rebuilds a trigram index that a failed concurrent build left invalid', async () => {
    const database = await createTestDatabase('docs_invalid_idx');
    try {
      const first = await startDocumentStore(
        loadDocumentStoreConfig({ ...bedEnv(), DATABASE_URL: database.url }),
      );
      await first.stop();
      const c = new pg.Client({ connectionString: database.url });
      await c.connect();
      try {
        // What an interrupted CREATE INDEX CONCURRENTLY leaves: the index, marked invalid.
        await c.query(
          `update pg_index set indisvalid = false where indexrelid = 'documents.documents_file_name_trgm_idx'::regclass`,
        );
        const second = await startDocumentStore(
          loadDocumentStoreConfig({ ...bedEnv(), DATABASE_URL: database.url }),
        );
        await second.stop();
        const { rows } = await c.query<{ valid: boolean }>(
          `select indisvalid as valid from pg_index where indexrelid = 'documents.documents_file_name_trgm_idx'::regclass`,
        );
        expect(rows).toEqual([{ valid: true }]);
      } finally {
        await c.end();
      }
    } finally {
      await database.drop();
    }
  });
});

/** The test bed's NATS settings, for a second store on another database. */
const bedEnv = () => ({
  NATS_URL: bed.config.NATS_URL,
  BUS_PREFIX: uniqueBusPrefix('docs_migrate'),
  LOG_LEVEL: 'error',
});
