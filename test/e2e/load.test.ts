import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { makePdf, makePng } from '@esign/testing';
import { auth, baseUrl, createAccount, dataUri, sign, storage, type TestAccount } from './harness';

let account: TestAccount;
let pdf: Buffer;
let signatureData: string;

beforeAll(async () => {
  account = await createAccount('business');
  pdf = await makePdf({ pages: 1, text: 'under load' });
  signatureData = dataUri(await makePng({ width: 300, height: 100 }));
});

const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('signing under load', () => {
  it('loses nothing: every one of 60 concurrent signings is answered, recorded and stored once', async () => {
    const total = 60;
    const results = await Promise.all(
      Array.from({ length: total }, async (_, i) => {
        const res = await sign(account.apiKey, {
          file: { bytes: pdf, name: `load-${i}.pdf` },
          fields: { signerName: 'Load Test', signerEmail: 'load@example.com', signatureData },
        });
        const body = Buffer.from(await res.arrayBuffer());
        return { status: res.status, auditId: res.headers.get('x-audit-id') ?? '', hash: sha256(body) };
      }),
    );
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: total }, () => 200));
    expect(new Set(results.map((r) => r.auditId)).size).toBe(total);

    // Every answer is recorded, with the hash of exactly the bytes that were returned.
    const listed = (await (
      await fetch(`${baseUrl}/api/v1/documents?limit=100&search=load-`, { headers: auth(account.apiKey) })
    ).json()) as { total: number; documents: { auditId: string; fileHash: string }[] };
    expect(listed.total).toBe(total);
    const recorded = new Map(listed.documents.map((d) => [d.auditId, d.fileHash]));
    for (const r of results) expect(recorded.get(r.auditId), r.auditId).toBe(r.hash);

    // Storage holds exactly one signed PDF per document of the account, and nothing else of it.
    const kept = await storage().list(`signed/${account.accountId}/`);
    expect(kept.sort()).toEqual(results.map((r) => `signed/${account.accountId}/${r.auditId}.pdf`).sort());
  });
});
