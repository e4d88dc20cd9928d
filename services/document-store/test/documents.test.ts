import { randomUUID } from 'node:crypto';
import { decodeJson, encodeJson, ZEnvelope } from '@esign/bus';
import {
  DocumentFindByIdempotencyKey,
  DocumentGet,
  DocumentList,
  DocumentRecord,
  type TListDocumentsRequest,
  type TRecordDocumentRequest,
} from '@esign/contracts';
import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { recordRequest, test, verifyAuditChain, type TestBed } from './helpers';

const ISO_MS_Z = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

let bed: TestBed;
let db: pg.Client;

const record = (request: TRecordDocumentRequest) => bed.client.request(DocumentRecord, request);
const list = (request: Partial<TListDocumentsRequest> & { accountId: string }) =>
  bed.client.request(DocumentList, { page: 1, limit: 20, sortBy: 'signed_at', sortDir: 'desc', ...request });
/** Send a request as raw NATS, past the client's own validation. */
const raw = async (subject: string, body: unknown) => {
  const reply = await bed.client.connection.request(bed.client.wire(subject), encodeJson(body), {
    timeout: 5000,
  });
  return ZEnvelope.parse(decodeJson(reply.data));
};

test.beforeAll(({ bed: fileBed, db: fileDb }) => {
  bed = fileBed;
  db = fileDb;
});

describe('document.record and document.get', () => {
  it('records a document with a hash-chained audit log that anyone can re-verify', async () => {
    const request = recordRequest({
      fileName: 'Lease agreement.pdf',
      signedAt: '2025-03-01T09:00:02.5+00:00',
      events: [
        // Offsets and extra precision are normalized to UTC milliseconds before hashing.
        {
          event: 'document.uploaded',
          timestamp: '2025-03-01T10:00:00+01:00',
          details: { ip: '203.0.113.7' },
        },
        {
          event: 'document.signed',
          timestamp: '2025-03-01T09:00:01.123456Z',
          details: { mode: 'draw', positions: 2, sealed: true, note: null, 'z-last': 'x', A: 'first' },
        },
      ],
    });
    const before = Date.now();
    const { id } = await record(request);

    const sutDetail = await bed.client.request(DocumentGet, {
      accountId: request.accountId,
      auditId: request.auditId,
    });
    expect(sutDetail).toMatchObject({
      id,
      auditId: request.auditId,
      fileName: 'Lease agreement.pdf',
      signerName: request.signerName,
      signerEmail: request.signerEmail,
      ipAddress: request.ipAddress,
      userAgent: request.userAgent,
      fileHash: request.fileHash,
      originalHash: request.originalHash,
      size: request.size,
      pageCount: request.pageCount,
      signedAt: '2025-03-01T09:00:02.500Z',
    });
    expect(sutDetail.createdAt).toMatch(ISO_MS_Z);
    expect(Date.parse(sutDetail.createdAt)).toBeGreaterThanOrEqual(before - 1000);

    const log = sutDetail.auditLog;
    expect(log.map((e) => [e.sequence, e.event, e.timestamp])).toEqual([
      [0, 'document.uploaded', '2025-03-01T09:00:00.000Z'],
      [1, 'document.signed', '2025-03-01T09:00:01.123Z'],
      [2, 'document.recorded', expect.stringMatching(ISO_MS_Z) as unknown],
    ]);
    expect(log[1]?.details).toEqual(request.events[1]?.details);
    expect(log[2]?.details).toEqual({ fileHash: request.fileHash });
    expect(log[0]?.prevHash).toBe('0'.repeat(64));
    expect(verifyAuditChain(request.auditId, log)).toEqual([]);

    // Tampering with any stored field breaks the chain from that entry on.
    const tampered = log.map((e, i) => (i === 1 ? { ...e, details: { ...e.details, positions: 3 } } : e));
    expect(verifyAuditChain(request.auditId, tampered)).toEqual([1]);
  });

  it('writes the document, its audit events and one outbox row together', async () => {
    const request = recordRequest();
    const { id } = await record(request);
    const rows = await db.query<{ documents: string; events: string; outbox: string; subject: string }>(
      `select (select count(*) from documents.documents where id = $1) as documents,
              (select count(*) from documents.audit_events where document_id = $1) as events,
              (select count(*) from documents.outbox where payload->>'documentId' = $1::text) as outbox,
              (select subject from documents.outbox where payload->>'documentId' = $1::text) as subject`,
      [id],
    );
    expect(rows.rows[0]).toEqual({
      documents: '1',
      events: '2',
      outbox: '1',
      subject: 'events.document.signed',
    });
  });

  it('answers conflict for a duplicate audit ID and writes nothing more', async () => {
    const request = recordRequest();
    const { id } = await record(request);
    await expect(record({ ...request, fileName: 'other.pdf' })).rejects.toMatchObject({
      code: 'conflict',
      field: 'auditId',
    });
    await expect(record({ ...request, accountId: randomUUID() })).rejects.toMatchObject({ code: 'conflict' });

    const counts = await db.query<{ documents: string; events: string; outbox: string }>(
      `select (select count(*) from documents.documents where audit_id = $1) as documents,
              (select count(*) from documents.audit_events where document_id = $2) as events,
              (select count(*) from documents.outbox where payload->>'auditId' = $1) as outbox`,
      [request.auditId, id],
    );
    expect(counts.rows[0]).toEqual({ documents: '1', events: '2', outbox: '1' });
  });

  it('answers not_found for another account’s document, an unknown audit ID and a malformed one', async () => {
    const request = recordRequest();
    await record(request);
    // The same answer for all three: nothing tells another account's document from a missing one.
    const notFound = { code: 'not_found', message: 'document not found' };
    await expect(
      bed.client.request(DocumentGet, { accountId: randomUUID(), auditId: request.auditId }),
    ).rejects.toMatchObject(notFound);
    await expect(
      bed.client.request(DocumentGet, { accountId: request.accountId, auditId: 'ESG-ZZZZ-ZZZZ-ZZZZ' }),
    ).rejects.toMatchObject(notFound);
    await expect(
      bed.client.request(DocumentGet, { accountId: request.accountId, auditId: "x' or '1'='1" }),
    ).rejects.toMatchObject(notFound);
  });

  it('remembers an Idempotency-Key per account: one document per key, found again by it', async () => {
    const idempotency = { key: `retry-${randomUUID()}`, requestHash: 'a'.repeat(64) };
    const first = recordRequest({ idempotency });
    await record(first);
    const found = await bed.client.request(DocumentFindByIdempotencyKey, {
      accountId: first.accountId,
      key: idempotency.key,
    });
    expect(found).toEqual({
      auditId: first.auditId,
      requestHash: idempotency.requestHash,
      fileName: first.fileName,
      signedAt: first.signedAt,
      fileHash: first.fileHash,
      objectKey: first.objectKey,
      size: first.size,
    });

    // The same key for a second document of the account: refused, and nothing of it written.
    const second = recordRequest({ accountId: first.accountId, idempotency });
    await expect(record(second)).rejects.toMatchObject({ code: 'conflict', field: 'Idempotency-Key' });
    const written = await db.query('select 1 from documents.documents where audit_id = $1', [second.auditId]);
    expect(written.rowCount).toBe(0);
    const outbox = await db.query(`select 1 from documents.outbox where payload->>'auditId' = $1`, [
      second.auditId,
    ]);
    expect(outbox.rowCount).toBe(0);

    // Keys are the account's own: another account may use the same one, and cannot find the first.
    const other = recordRequest({ idempotency });
    await record(other);
    await expect(
      bed.client.request(DocumentFindByIdempotencyKey, { accountId: randomUUID(), key: idempotency.key }),
    ).rejects.toMatchObject({ code: 'not_found' });
    // Documents recorded without a key are not found by any.
    await record(recordRequest({ accountId: first.accountId }));
    await expect(
      bed.client.request(DocumentFindByIdempotencyKey, { accountId: first.accountId, key: 'never-used' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('rejects text Postgres cannot store faithfully', async () => {
    await expect(record(recordRequest({ signerName: 'Ada\u0000' }))).rejects.toMatchObject({
      code: 'invalid_argument',
      field: 'signerName',
    });
    await expect(
      record(
        recordRequest({
          events: [{ event: 'x', timestamp: '2025-01-01T00:00:00Z', details: { note: '\ud800' } }],
        }),
      ),
    ).rejects.toMatchObject({ code: 'invalid_argument', field: 'events.0.details.note' });
  });
});

describe('document.list', () => {
  const accountId = randomUUID();
  const docs = [
    { fileName: 'Alpha contract.pdf', signedAt: '2025-01-10T00:00:00.000Z' },
    { fileName: 'Beta_invoice.pdf', signedAt: '2025-01-10T23:59:59.999Z' },
    { fileName: 'Gamma 100% final.pdf', signedAt: '2025-01-11T00:00:00.000Z' },
    { fileName: 'Delta report.PDF', signedAt: '2025-01-05T12:00:00.000Z' },
    { fileName: 'ZetaXinvoice.pdf', signedAt: '2025-01-20T08:30:00.000Z' },
    { fileName: 'Epsilon.pdf', signedAt: '2024-12-31T23:59:59.999Z' },
  ];
  const names = (reply: { documents: { fileName: string }[] }) => reply.documents.map((d) => d.fileName);

  beforeAll(async () => {
    // One at a time, so created_at follows the order above.
    for (const doc of docs) await record(recordRequest({ accountId, ...doc }));
  });

  it('lists by signed_at descending by default, with list fields only', async () => {
    const sutReply = await list({ accountId });
    expect(sutReply).toMatchObject({ total: 6, page: 1, pages: 1 });
    expect(names(sutReply)).toEqual([
      'ZetaXinvoice.pdf',
      'Gamma 100% final.pdf',
      'Beta_invoice.pdf',
      'Alpha contract.pdf',
      'Delta report.PDF',
      'Epsilon.pdf',
    ]);
    const first = sutReply.documents[0];
    expect(Object.keys(first ?? {}).sort()).toEqual(
      ['auditId', 'fileHash', 'fileName', 'id', 'ipAddress', 'signedAt', 'signerEmail', 'signerName'].sort(),
    );
    expect(first?.signedAt).toBe('2025-01-20T08:30:00.000Z');
  });

  it('sorts by each column in both directions', async () => {
    const byName = [
      'Alpha contract.pdf',
      'Beta_invoice.pdf',
      'Delta report.PDF',
      'Epsilon.pdf',
      'Gamma 100% final.pdf',
      'ZetaXinvoice.pdf',
    ];
    expect(names(await list({ accountId, sortBy: 'file_name', sortDir: 'asc' }))).toEqual(byName);
    expect(names(await list({ accountId, sortBy: 'file_name', sortDir: 'desc' }))).toEqual(
      [...byName].reverse(),
    );
    const inserted = docs.map((d) => d.fileName);
    expect(names(await list({ accountId, sortBy: 'created_at', sortDir: 'asc' }))).toEqual(inserted);
    expect(names(await list({ accountId, sortBy: 'created_at', sortDir: 'desc' }))).toEqual(
      [...inserted].reverse(),
    );
    expect(names(await list({ accountId, sortBy: 'signed_at', sortDir: 'asc' }))).toEqual([
      'Epsilon.pdf',
      'Delta report.PDF',
      'Alpha contract.pdf',
      'Beta_invoice.pdf',
      'Gamma 100% final.pdf',
      'ZetaXinvoice.pdf',
    ]);
  });

  it('searches file names case-insensitively, with % and _ taken literally', async () => {
    expect(names(await list({ accountId, search: 'ALPHA' }))).toEqual(['Alpha contract.pdf']);
    expect((await list({ accountId, search: '.pdf' })).total).toBe(6);
    expect(names(await list({ accountId, search: '%' }))).toEqual(['Gamma 100% final.pdf']);
    // Unescaped, `a_i` would also match "ZetaXinvoice".
    expect(names(await list({ accountId, search: 'a_i' }))).toEqual(['Beta_invoice.pdf']);
    expect((await list({ accountId, search: 'nothing like it' })).total).toBe(0);
  });

  it('filters signed_at with an inclusive start and an exclusive end', async () => {
    // dateFrom=2025-01-10&dateTo=2025-01-10 as the gateway sends it.
    const oneDay = await list({
      accountId,
      signedFrom: '2025-01-10T00:00:00.000Z',
      signedBefore: '2025-01-11T00:00:00.000Z',
      sortDir: 'asc',
    });
    expect(names(oneDay)).toEqual(['Alpha contract.pdf', 'Beta_invoice.pdf']);
    expect(oneDay).toMatchObject({ total: 2, pages: 1 });

    expect(names(await list({ accountId, signedFrom: '2025-01-11T00:00:00.000Z', sortDir: 'asc' }))).toEqual([
      'Gamma 100% final.pdf',
      'ZetaXinvoice.pdf',
    ]);
    expect(names(await list({ accountId, signedBefore: '2025-01-01T00:00:00.000Z' }))).toEqual([
      'Epsilon.pdf',
    ]);
    // An offset is an instant like any other.
    expect(
      names(
        await list({
          accountId,
          signedFrom: '2025-01-11T01:00:00+01:00',
          signedBefore: '2025-01-11T00:00:00.001Z',
        }),
      ),
    ).toEqual(['Gamma 100% final.pdf']);
  });

  it('combines search, dates, sort and paging', async () => {
    const sutReply = await list({
      accountId,
      search: 'INVOICE',
      signedFrom: '2025-01-01T00:00:00.000Z',
      sortBy: 'file_name',
      sortDir: 'desc',
      limit: 1,
      page: 2,
    });
    expect(sutReply).toMatchObject({ total: 2, page: 2, pages: 2 });
    expect(names(sutReply)).toEqual(['Beta_invoice.pdf']);
  });

  it('pages with total and pages, and answers an empty page past the end', async () => {
    const first = await list({ accountId, limit: 4, sortBy: 'file_name', sortDir: 'asc' });
    const second = await list({ accountId, limit: 4, page: 2, sortBy: 'file_name', sortDir: 'asc' });
    const past = await list({ accountId, limit: 4, page: 3 });
    expect(first).toMatchObject({ total: 6, page: 1, pages: 2 });
    expect(names(first)).toEqual([
      'Alpha contract.pdf',
      'Beta_invoice.pdf',
      'Delta report.PDF',
      'Epsilon.pdf',
    ]);
    expect(names(second)).toEqual(['Gamma 100% final.pdf', 'ZetaXinvoice.pdf']);
    expect(past).toEqual({ documents: [], total: 6, totalExact: true, page: 3, pages: 2, nextCursor: null });
  });

  it('shows an account only its own documents', async () => {
    expect(await list({ accountId: randomUUID() })).toEqual({
      documents: [],
      total: 0,
      totalExact: true,
      page: 1,
      pages: 0,
      nextCursor: null,
    });
    const stranger = await list({ accountId: randomUUID(), search: 'Alpha' });
    expect(stranger.total).toBe(0);
  });

  it('breaks ties by id so that pages neither repeat nor skip documents', async () => {
    const tied = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1) {
      ids.push(
        (
          await record(
            recordRequest({ accountId: tied, fileName: 'same.pdf', signedAt: '2025-02-02T02:02:02.000Z' }),
          )
        ).id,
      );
    }
    for (const sortBy of ['signed_at', 'file_name'] as const) {
      for (const sortDir of ['asc', 'desc'] as const) {
        const seen: string[] = [];
        for (let page = 1; page <= 3; page += 1) {
          const reply = await list({ accountId: tied, limit: 2, page, sortBy, sortDir });
          seen.push(...reply.documents.map((d) => d.id));
        }
        const expected = [...ids].sort();
        expect(seen).toEqual(sortDir === 'asc' ? expected : expected.reverse());
      }
    }
  });

  it('serves pages of up to 100 and refuses more', async () => {
    const big = randomUUID();
    for (let batch = 0; batch < 7; batch += 1) {
      await Promise.all(
        Array.from({ length: 15 }, (_, i) =>
          record(
            recordRequest({ accountId: big, fileName: `doc-${String(batch * 15 + i).padStart(3, '0')}.pdf` }),
          ),
        ),
      );
    }
    const first = await list({ accountId: big, limit: 100, sortBy: 'file_name', sortDir: 'asc' });
    expect(first).toMatchObject({ total: 105, page: 1, pages: 2 });
    expect(first.documents).toHaveLength(100);
    const second = await list({ accountId: big, limit: 100, page: 2, sortBy: 'file_name', sortDir: 'asc' });
    expect(names(second)).toEqual([
      'doc-100.pdf',
      'doc-101.pdf',
      'doc-102.pdf',
      'doc-103.pdf',
      'doc-104.pdf',
    ]);
    expect(new Set([...first.documents, ...second.documents].map((d) => d.id)).size).toBe(105);

    const tooMany = await raw(DocumentList.subject, {
      accountId: big,
      page: 1,
      limit: 101,
      sortBy: 'signed_at',
      sortDir: 'desc',
    });
    expect(tooMany).toMatchObject({ ok: false, error: { code: 'invalid_argument', field: 'limit' } });
    const badSort = await raw(DocumentList.subject, {
      accountId: big,
      page: 1,
      limit: 10,
      sortBy: 'size',
      sortDir: 'desc',
    });
    expect(badSort).toMatchObject({ ok: false, error: { code: 'invalid_argument', field: 'sortBy' } });
  });
});
