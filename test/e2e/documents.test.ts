import { beforeAll, describe, expect, it } from 'vitest';
import { makePdf, makePng } from '@esign/testing';
import { auth, baseUrl, createAccount, dataUri, errorOf, sign, type TestAccount } from './harness';

interface ListBody {
  documents: {
    id: string;
    fileName: string;
    auditId: string;
    signedAt: string;
    fileHash: string;
    signerName: string;
    signerEmail: string;
    ipAddress: string;
  }[];
  total: number;
  page: number;
  pages: number;
  totalExact: boolean;
  nextCursor: string | null;
}

let owner: TestAccount;
let other: TestAccount;
const signed: { auditId: string; fileName: string; signedAt: string }[] = [];

const list = async (account: TestAccount, query: string) => {
  const res = await fetch(`${baseUrl}/api/v1/documents${query}`, { headers: auth(account.apiKey) });
  return { status: res.status, body: (await res.json()) as ListBody & { error?: string } };
};

beforeAll(async () => {
  owner = await createAccount();
  other = await createAccount();
  const pdf = await makePdf({ pages: 1 });
  const signatureData = dataUri(await makePng({ width: 90, height: 30 }));
  for (const fileName of ['beta-lease.pdf', 'alpha-nda.pdf', 'gamma-NDA-final.pdf', 'delta_100%.pdf']) {
    const res = await sign(owner.apiKey, {
      file: { bytes: pdf, name: fileName },
      fields: { signerName: 'Grace Hopper', signerEmail: 'grace@example.com', signatureData },
    });
    expect(res.status).toBe(200);
    signed.push({
      auditId: res.headers.get('x-audit-id') ?? '',
      fileName,
      signedAt: res.headers.get('x-signed-at') ?? '',
    });
    // Kept on purpose: distinct signing times (milliseconds apart), so sorting by signed_at has one order.
    await new Promise((r) => setTimeout(r, 15));
  }
  await sign(other.apiKey, {
    file: { bytes: pdf, name: 'someone-elses.pdf' },
    fields: { signerName: 'Eve', signerEmail: 'eve@example.com', signatureData },
  });
});

describe('GET /api/v1/documents', () => {
  it('pages by cursor: each document once, in the sort, then a null cursor', async () => {
    const seen: string[] = [];
    let query = '?limit=1&sortBy=file_name&sortDir=asc';
    for (let i = 0; i < 10; i++) {
      const { status, body } = await list(owner, query);
      expect(status).toBe(200);
      expect(body.totalExact).toBe(true);
      seen.push(...body.documents.map((d) => d.fileName));
      if (!body.nextCursor) break;
      query = `?limit=1&sortBy=file_name&sortDir=asc&cursor=${encodeURIComponent(body.nextCursor)}`;
    }
    expect(seen).toEqual(['alpha-nda.pdf', 'beta-lease.pdf', 'delta_100%.pdf', 'gamma-NDA-final.pdf']);
    const forged = await list(owner, '?cursor=not-a-cursor');
    expect(forged.status).toBe(400);
    expect(forged.body.error).toMatch(/cursor/);
  });

  it("lists the account's documents, newest first by default, 20 a page", async () => {
    const { status, body } = await list(owner, '');
    expect(status).toBe(200);
    expect(body).toMatchObject({ total: 4, page: 1, pages: 1 });
    expect(body.documents.map((d) => d.fileName)).toEqual([
      'delta_100%.pdf',
      'gamma-NDA-final.pdf',
      'alpha-nda.pdf',
      'beta-lease.pdf',
    ]);
    const first = body.documents[0];
    expect(Object.keys(first ?? {}).sort()).toEqual(
      ['auditId', 'fileHash', 'fileName', 'id', 'ipAddress', 'signedAt', 'signerEmail', 'signerName'].sort(),
    );
    expect(first?.fileHash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(first?.id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('pages with page and limit', async () => {
    const { body } = await list(owner, '?limit=3&page=2&sortBy=file_name&sortDir=asc');
    expect(body).toMatchObject({ total: 4, page: 2, pages: 2 });
    expect(body.documents.map((d) => d.fileName)).toEqual(['gamma-NDA-final.pdf']);
    expect((await list(owner, '?limit=100')).body.documents).toHaveLength(4);
    expect((await list(owner, '?page=9')).body.documents).toEqual([]);
  });

  it('searches file names by partial, case-insensitive match, with wildcards taken literally', async () => {
    expect((await list(owner, '?search=nda')).body.documents.map((d) => d.fileName).sort()).toEqual([
      'alpha-nda.pdf',
      'gamma-NDA-final.pdf',
    ]);
    expect(
      (await list(owner, `?search=${encodeURIComponent('100%')}`)).body.documents.map((d) => d.fileName),
    ).toEqual(['delta_100%.pdf']);
    expect((await list(owner, '?search=_')).body.total).toBe(1);
    expect((await list(owner, '?search=zzz')).body).toMatchObject({ total: 0, pages: 0, documents: [] });
  });

  it('sorts by signed_at, file_name or created_at in either direction', async () => {
    const names = async (q: string) => (await list(owner, q)).body.documents.map((d) => d.fileName);
    expect(await names('?sortBy=file_name&sortDir=asc')).toEqual([
      'alpha-nda.pdf',
      'beta-lease.pdf',
      'delta_100%.pdf',
      'gamma-NDA-final.pdf',
    ]);
    expect(await names('?sortBy=file_name&sortDir=desc')).toEqual([
      'gamma-NDA-final.pdf',
      'delta_100%.pdf',
      'beta-lease.pdf',
      'alpha-nda.pdf',
    ]);
    expect(await names('?sortBy=signed_at&sortDir=asc')).toEqual([
      'beta-lease.pdf',
      'alpha-nda.pdf',
      'gamma-NDA-final.pdf',
      'delta_100%.pdf',
    ]);
    expect(await names('?sortBy=created_at&sortDir=asc')).toEqual([
      'beta-lease.pdf',
      'alpha-nda.pdf',
      'gamma-NDA-final.pdf',
      'delta_100%.pdf',
    ]);
  });

  it('filters by signing date, both ends inclusive, by day or by instant', async () => {
    const today = signed[0]?.signedAt.slice(0, 10) ?? '';
    const day = (offset: number) =>
      new Date(Date.parse(today) + offset * 86_400_000).toISOString().slice(0, 10);
    expect((await list(owner, `?dateFrom=${today}&dateTo=${today}`)).body.total).toBe(4);
    expect((await list(owner, `?dateTo=${day(-1)}`)).body.total).toBe(0);
    expect((await list(owner, `?dateFrom=${day(1)}`)).body.total).toBe(0);
    const second = signed[1]?.signedAt ?? '';
    const third = signed[2]?.signedAt ?? '';
    const { body } = await list(
      owner,
      `?dateFrom=${encodeURIComponent(second)}&dateTo=${encodeURIComponent(third)}&sortDir=asc`,
    );
    expect(body.documents.map((d) => d.fileName)).toEqual(['alpha-nda.pdf', 'gamma-NDA-final.pdf']);
  });

  it.each([
    ['?limit=101', /^limit must be an integer from 1 to 100/],
    ['?limit=0', /^limit must be/],
    ['?page=0', /^page must be/],
    ['?page=two', /^page must be/],
    ['?sortBy=size', /^sortBy must be signed_at, file_name or created_at/],
    ['?sortDir=up', /^sortDir must be asc or desc/],
    ['?dateFrom=yesterday', /^dateFrom must be an ISO date/],
    ['?dateTo=2026-02-30', /^dateTo must be an ISO date/],
    ['?dateFrom=2026-05-02&dateTo=2026-05-01', /^dateFrom must not be after dateTo/],
  ])('answers 400 naming the parameter for %s', async (query, pattern) => {
    const res = await fetch(`${baseUrl}/api/v1/documents${query}`, { headers: auth(owner.apiKey) });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatch(pattern);
  });

  it('shows each account only its own documents', async () => {
    const { body } = await list(other, '');
    expect(body.documents.map((d) => d.fileName)).toEqual(['someone-elses.pdf']);
  });
});

describe('GET /api/v1/documents/:auditId', () => {
  it('returns the document with its audit log, chained entry to entry', async () => {
    const target = signed[1];
    const res = await fetch(`${baseUrl}/api/v1/documents/${target?.auditId}`, {
      headers: auth(owner.apiKey),
    });
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      auditId: string;
      signerName: string;
      signedAt: string;
      auditLog: { event: string; timestamp: string; prevHash: string; hash: string }[];
    };
    expect(doc).toMatchObject({
      auditId: target?.auditId,
      signerName: 'Grace Hopper',
      signedAt: target?.signedAt,
      fileName: 'alpha-nda.pdf',
    });
    expect(doc.auditLog.length).toBeGreaterThanOrEqual(4);
    doc.auditLog.forEach((entry, i) => {
      expect(entry.prevHash).toBe(i === 0 ? '0'.repeat(64) : doc.auditLog[i - 1]?.hash);
    });
  });

  it("answers 404 for an unknown audit ID, a malformed one, and another account's document", async () => {
    for (const id of ['ESG-ZZZZ-ZZZZ-ZZZZ', 'not-an-id', signed[0]?.auditId ?? '']) {
      const account = id === signed[0]?.auditId ? other : owner;
      const res = await fetch(`${baseUrl}/api/v1/documents/${id}`, { headers: auth(account.apiKey) });
      expect(res.status).toBe(404);
      expect(await errorOf(res)).toMatch(/not found|No document/i);
    }
  });
});
