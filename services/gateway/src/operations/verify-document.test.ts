import { describe, expect, it } from 'vitest';
import type { TIssuedDocument, TPdfVerifyReply, TSignatureReport } from '@esign/contracts';
import { checkIssuedDocument } from './check-issued-document';
import { fakeVerifyingPorts } from './fake-verifying-ports';
import { verifyDocument } from './verify-document';

const hex = (c: string) => c.repeat(64);
const UPLOAD = {
  key: 'uploads/5c0b7a51-0f6e-4a54-9d7f-3b1d7c5e2a10',
  fileName: 'contract-signed.pdf',
  sha256: hex('f'),
};
const FILE_HASH = `sha256:${hex('f')}`;

const signature = (over: Partial<TSignatureReport> = {}): TSignatureReport => ({
  index: 1,
  type: 'signature',
  subFilter: 'ETSI.CAdES.detached',
  signer: 'esign seal',
  signingTime: '2026-11-23T10:00:00.000Z',
  certificate: null,
  sealedByThisService: true,
  cryptographicallyValid: true,
  digestMatches: true,
  signatureVerifies: true,
  coversWholeFile: true,
  signedBytes: 1000,
  revisionHash: `sha256:${hex('a')}`,
  updatesAfter: 0,
  changesAfter: [],
  timestamp: null,
  problems: [],
  ...over,
});

const report = (over: Partial<TPdfVerifyReply> = {}): TPdfVerifyReply => ({
  size: 1000,
  looksLikePdf: true,
  signatures: [signature()],
  revisions: [{ end: 1000, sha256: FILE_HASH }],
  problems: [],
  ...over,
});

const issued = (fileHash: string, auditId = 'ESG-AAAA-BBBB-CCCC'): TIssuedDocument => ({
  auditId,
  signedAt: '2026-11-23T10:00:00.000Z',
  fileHash,
  signerName: 'A*** L***',
  signerEmail: 'a***@example.com',
  pageCount: 2,
});

describe('verifyDocument', () => {
  it('valid, and exactly the document we issued: the worker got the upload, our record was found by hash', async () => {
    const world = fakeVerifyingPorts({
      verifyPdf: () => Promise.resolve(report()),
      issued: [issued(FILE_HASH)],
    });
    const sut = await verifyDocument(world.ports, { upload: UPLOAD });
    expect(world.verified).toEqual([UPLOAD.key]);
    expect(world.lookups).toEqual([[FILE_HASH]]);
    expect(sut).toMatchObject({
      verdict: 'valid',
      summary:
        'The signature verifies and nothing was changed after the last one. It is exactly the document we issued as ESG-AAAA-BBBB-CCCC.',
      file: { name: 'contract-signed.pdf', size: 1000, sha256: FILE_HASH },
      issued: { exactMatch: true, document: { auditId: 'ESG-AAAA-BBBB-CCCC' } },
      problems: [],
    });
    expect(sut.signatures[0]?.issuedAuditId).toBe('ESG-AAAA-BBBB-CCCC');
  });

  it('valid when only long-term validation data or a document timestamp came after the last signature', async () => {
    const world = fakeVerifyingPorts({
      verifyPdf: () =>
        Promise.resolve(
          report({
            signatures: [
              signature({
                coversWholeFile: false,
                updatesAfter: 2,
                changesAfter: ['long-term validation data (DSS)', 'a document timestamp'],
              }),
            ],
          }),
        ),
    });
    const sut = await verifyDocument(world.ports, { upload: UPLOAD });
    expect(sut.verdict).toBe('valid');
    expect(sut.summary).toContain('It is not a document we issued (no record of this file).');
  });

  it('modified when something else was appended: the issued revision is found and named', async () => {
    const signedRevision = `sha256:${hex('a')}`;
    const world = fakeVerifyingPorts({
      verifyPdf: () =>
        Promise.resolve(
          report({
            size: 1500,
            signatures: [signature({ coversWholeFile: false, updatesAfter: 1, changesAfter: ['a page'] })],
            revisions: [
              { end: 1000, sha256: signedRevision },
              { end: 1500, sha256: FILE_HASH },
            ],
          }),
        ),
      issued: [issued(signedRevision)],
    });
    const sut = await verifyDocument(world.ports, { upload: UPLOAD });
    expect(world.lookups).toEqual([[FILE_HASH, signedRevision]]);
    expect(sut.verdict).toBe('modified');
    expect(sut.issued).toMatchObject({ exactMatch: false, document: { auditId: 'ESG-AAAA-BBBB-CCCC' } });
    expect(sut.summary).toBe(
      'The signature verifies, but the file was changed after the last one was made. It was changed after we issued it as ESG-AAAA-BBBB-CCCC; this copy is not the one we issued.',
    );
    expect(sut.signatures[0]?.issuedAuditId).toBe('ESG-AAAA-BBBB-CCCC');
  });

  it('invalid when a signature does not verify', async () => {
    const world = fakeVerifyingPorts({
      verifyPdf: () =>
        Promise.resolve(
          report({ signatures: [signature(), signature({ index: 2, cryptographicallyValid: false })] }),
        ),
    });
    const sut = await verifyDocument(world.ports, { upload: UPLOAD });
    expect(sut.verdict).toBe('invalid');
    expect(sut.summary).toMatch(/^At least one signature does not verify/);
  });

  it('invalid and damaged when every signature verifies but the file is not a whole PDF', async () => {
    const world = fakeVerifyingPorts({ verifyPdf: () => Promise.resolve(report({ looksLikePdf: false })) });
    const sut = await verifyDocument(world.ports, { upload: UPLOAD });
    expect(sut.verdict).toBe('invalid');
    expect(sut.summary).toMatch(/^The file is damaged: it was truncated/);
  });

  it('unsigned for a PDF without signatures, invalid for something that is not a PDF at all', async () => {
    const unsigned = fakeVerifyingPorts({ verifyPdf: () => Promise.resolve(report({ signatures: [] })) });
    const sut = await verifyDocument(unsigned.ports, { upload: UPLOAD });
    expect(sut.verdict).toBe('unsigned');
    expect(sut.summary).toBe(
      'The file has no digital signature. It is not a document we issued (no record of this file).',
    );
    const garbage = fakeVerifyingPorts({
      verifyPdf: () => Promise.resolve(report({ signatures: [], looksLikePdf: false, revisions: [] })),
    });
    expect((await verifyDocument(garbage.ports, { upload: UPLOAD })).verdict).toBe('invalid');
  });

  it('counts signatures in the summary and looks up at most the last 64 hashes', async () => {
    const revisions = Array.from({ length: 70 }, (_, i) => ({
      end: (i + 1) * 100,
      sha256: `sha256:${i.toString(16).padStart(64, '0')}`,
    }));
    const world = fakeVerifyingPorts({
      verifyPdf: () =>
        Promise.resolve(report({ signatures: [signature(), signature({ index: 2 })], revisions })),
    });
    const sut = await verifyDocument(world.ports, { upload: UPLOAD });
    expect(sut.summary).toMatch(/^The 2 signatures verify and nothing was changed/);
    expect(world.lookups[0]).toHaveLength(64);
  });
});

describe('checkIssuedDocument', () => {
  const document = issued(`sha256:${hex('b')}`);

  it('answers the document we issued, and whether a copy is exactly it', async () => {
    const world = fakeVerifyingPorts({ findIssuedByAuditId: () => Promise.resolve(document) });
    expect(await checkIssuedDocument(world.ports, { auditId: document.auditId })).toEqual({
      ...document,
      exists: true,
      hashMatches: null,
    });
    const same = await checkIssuedDocument(world.ports, {
      auditId: document.auditId,
      hash: `sha256:${hex('B')}`,
    });
    expect(same.hashMatches).toBe(true);
    const other = await checkIssuedDocument(world.ports, {
      auditId: document.auditId,
      hash: `sha256:${hex('c')}`,
    });
    expect(other.hashMatches).toBe(false);
  });

  it('answers 404 for an unknown audit ID, and for what is not one without asking anyone', async () => {
    const unknown = fakeVerifyingPorts({ findIssuedByAuditId: () => Promise.resolve(undefined) });
    await expect(checkIssuedDocument(unknown.ports, { auditId: 'ESG-ZZZZ-ZZZZ-ZZZZ' })).rejects.toMatchObject(
      {
        code: 'not_found',
        message: 'No document with audit ID ESG-ZZZZ-ZZZZ-ZZZZ',
      },
    );
    const nobody = fakeVerifyingPorts({});
    await expect(checkIssuedDocument(nobody.ports, { auditId: 'not-an-audit-id' })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});
