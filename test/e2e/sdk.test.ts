/**
 * The Node.js SDK (libs/sdk) against the running stack: every method, the errors a client must handle,
 * idempotent replays and the sandbox. It imports the SDK's source (no build step in CI); the built
 * package is tested in libs/sdk/test/build.test.ts.
 */
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf, makePng } from '@esign/testing';
import { EsignApiError, EsignClient, type SignedDocument } from '../../libs/sdk/src/index.js';
import { baseUrl, createAccount, dataUri, type TestAccount } from './harness';

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
const startsWithPdf = (bytes: Uint8Array) => Buffer.from(bytes.subarray(0, 5)).toString('latin1') === '%PDF-';
const AUDIT_ID = /^ESG-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}$/;

/** The error a call rejects with, asserting it is an EsignApiError. */
const apiErrorOf = async (call: Promise<unknown>): Promise<EsignApiError> => {
  const error = await call.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(error instanceof EsignApiError)) throw new Error(`expected an EsignApiError, got ${String(error)}`);
  return error;
};

let account: TestAccount;
let esign: EsignClient;
let dir: string;
let pdfPath: string;
let pdf: Buffer;
let sandboxToken: string;
const signer = { signerName: 'Ada Lovelace', signerEmail: 'ada@example.com' } as const;

beforeAll(async () => {
  account = await createAccount('business');
  esign = new EsignClient({ apiKey: account.apiKey, baseUrl });
  dir = await mkdtemp(join(tmpdir(), 'esign-sdk-e2e-'));
  pdf = await makePdf({ pages: 2, text: `sdk ${randomUUID()}` });
  pdfPath = join(dir, 'sdk-contract.pdf');
  await writeFile(pdfPath, pdf);
  // The deployment's sandbox token, as a client developer finds it: in the API document.
  const doc = (await (await fetch(`${baseUrl}/openapi.json`)).json()) as {
    components: { securitySchemes: { sandboxToken: { description: string } } };
  };
  const token = /svc_sandbox_[A-Za-z0-9_]+/.exec(
    doc.components.securitySchemes.sandboxToken.description,
  )?.[0];
  if (!token) throw new Error('no sandbox token in /openapi.json');
  sandboxToken = token;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('signDocument', () => {
  let signed: SignedDocument;

  it('signs a file from a path and returns the PDF with its audit ID, time and hash', async () => {
    signed = await esign.signDocument({
      ...signer,
      file: pdfPath,
      mode: 'type',
      typedName: 'Ada Lovelace',
      positions: [
        { x: 60, y: 80, page: 0, width: 30 },
        { x: 10, y: 10, page: 1, width: 20 },
      ],
    });

    expect(startsWithPdf(signed.bytes)).toBe(true);
    expect(signed.fileHash).toBe(sha256(signed.bytes));
    expect(signed.auditId).toMatch(AUDIT_ID);
    expect(Date.parse(signed.signedAt)).toBeGreaterThan(Date.now() - 5 * 60_000);
    expect(signed.fileName).toBe('sdk-contract-signed.pdf');
    expect(signed.replayed).toBe(false);
    expect(Buffer.from(signed.bytes).toString('latin1')).toContain(signed.auditId);
  });

  it('answers a retry with the same Idempotency-Key with the same document, replayed', async () => {
    const again = await esign.signDocument(
      {
        ...signer,
        file: pdfPath,
        mode: 'type',
        typedName: 'Ada Lovelace',
        positions: [
          { x: 60, y: 80, page: 0, width: 30 },
          { x: 10, y: 10, page: 1, width: 20 },
        ],
      },
      { idempotencyKey: signed.idempotencyKey },
    );

    expect(again.replayed).toBe(true);
    expect(again.auditId).toBe(signed.auditId);
    expect(again.fileHash).toBe(signed.fileHash);
    expect(Buffer.from(again.bytes).equals(Buffer.from(signed.bytes))).toBe(true);
  });

  it('answers 409 for the same Idempotency-Key with a different request', async () => {
    const error = await apiErrorOf(
      esign.signDocument(
        { ...signer, file: pdfPath, mode: 'type', typedName: 'Someone Else' },
        { idempotencyKey: signed.idempotencyKey },
      ),
    );

    expect(error.status).toBe(409);
    expect(error.message).toMatch(/Idempotency-Key/i);
  });

  it('signs a PNG from a stream with a drawn signature, under the given file name', async () => {
    const png = await makePng({ width: 400, height: 300 });

    const result = await esign.signDocument({
      ...signer,
      file: Readable.from([png.subarray(0, 100), png.subarray(100)]),
      fileName: 'photo.png',
      signatureData: dataUri(await makePng({ width: 300, height: 100 })),
    });

    expect(startsWithPdf(result.bytes)).toBe(true);
    expect(result.fileHash).toBe(sha256(result.bytes));
    expect(result.fileName).toBe('photo-signed.pdf');
    expect(result.auditId).not.toBe(signed.auditId);
  });

  it('names the field at fault in a 400', async () => {
    const error = await apiErrorOf(
      esign.signDocument({
        signerName: 'Ada',
        signerEmail: 'not-an-email',
        file: pdf,
        mode: 'type',
        typedName: 'Ada',
      }),
    );

    expect(error).toMatchObject({ name: 'EsignApiError', status: 400, operationId: 'signDocument' });
    expect(error.message).toMatch(/^signerEmail/);
    expect(JSON.parse(error.body)).toEqual({ error: error.message });
  });

  it('finds the signed document with getDocument and listDocuments', async () => {
    const detail = await esign.getDocument(signed.auditId);
    const list = await esign.listDocuments({ search: 'sdk-contract', limit: 10, sortBy: 'signed_at' });

    expect(detail).toMatchObject({
      auditId: signed.auditId,
      fileHash: signed.fileHash,
      fileName: 'sdk-contract.pdf',
      signerEmail: 'ada@example.com',
      pageCount: 3, // two pages and the audit page
      size: signed.bytes.byteLength,
    });
    expect(detail.auditLog[0]?.event).toBe('document.uploaded');
    // Hash-chained: each entry names the hash of the one before it.
    detail.auditLog.slice(1).forEach((entry, i) => expect(entry.prevHash).toBe(detail.auditLog[i]?.hash));
    expect(list.total).toBe(1);
    expect(list.documents.map((d) => d.auditId)).toEqual([signed.auditId]);
    expect(list).toMatchObject({ page: 1, pages: 1 });
  });
});

describe('documents', () => {
  it('getDocument of an unknown audit ID is a 404', async () => {
    const error = await apiErrorOf(esign.getDocument('ESG-2222-3333-4444'));

    expect(error.status).toBe(404);
    expect(error.message).toMatch(/not found/);
  });

  it('listDocuments names the parameter at fault in a 400', async () => {
    const error = await apiErrorOf(esign.listDocuments({ limit: 500 }));

    expect(error).toMatchObject({ status: 400, message: 'limit must be an integer from 1 to 100' });
  });
});

describe('templates', () => {
  it('lists templates, generates one, and signs it where the template says', async () => {
    const { templates } = await esign.listTemplates();
    expect(templates.map((t) => t.slug)).toContain('nda');

    const generated = await esign.generateTemplate({
      slug: 'nda',
      fields: { partyA: 'Northwind Traders Ltd', partyB: 'Jane Roe', effectiveDate: '2025-03-01' },
    });
    expect(startsWithPdf(generated.bytes)).toBe(true);
    expect(generated.slug).toBe('nda');
    expect(generated.pageCount).toBeGreaterThanOrEqual(1);
    expect(generated.positions.length).toBeGreaterThanOrEqual(1);
    expect(generated.fileName).toMatch(/\.pdf$/);

    const signed = await esign.signDocument({
      ...signer,
      file: new Blob([generated.bytes]),
      fileName: generated.fileName,
      mode: 'type',
      typedName: 'Jane Roe',
      positions: generated.positions,
    });
    expect(signed.fileHash).toBe(sha256(signed.bytes));
  });

  it('generateTemplate of an unknown template is a 404', async () => {
    const error = await apiErrorOf(esign.generateTemplate({ slug: 'no-such-template', fields: {} }));

    expect(error.status).toBe(404);
  });
});

describe('the field reference', () => {
  it('getSignReference returns the fields of POST /api/v1/sign', async () => {
    const reference = await esign.getSignReference();

    expect(reference.endpoint).toContain('/api/v1/sign');
    expect(reference.fields.map((f) => f.name)).toEqual(
      expect.arrayContaining(['file', 'signerName', 'positions']),
    );
  });
});

describe('credentials', () => {
  it('a bad key is a 401', async () => {
    const stranger = new EsignClient({ apiKey: `svc_live_${'x'.repeat(32)}`, baseUrl });

    const error = await apiErrorOf(stranger.listDocuments());

    expect(error.status).toBe(401);
    expect(error.message.length).toBeGreaterThan(0);
  });

  it('an account without API access is a 403', async () => {
    const free = await createAccount('free');
    const error = await apiErrorOf(new EsignClient({ apiKey: free.apiKey, baseUrl }).listTemplates());

    expect(error.status).toBe(403);
  });

  it('the sandbox token on a live endpoint is a 401 that says to use a live key', async () => {
    const error = await apiErrorOf(new EsignClient({ apiKey: sandboxToken, baseUrl }).listDocuments());

    expect(error.status).toBe(401);
    expect(error.message).toMatch(/svc_live_|live/i);
  });
});

describe('verification', () => {
  it('verifies a signed PDF and checks its audit ID, without a credential', async () => {
    const signed = await esign.signDocument({
      file: pdf,
      fileName: 'verify-me.pdf',
      ...signer,
      mode: 'type',
      typedName: 'Ada Lovelace',
    });
    // The operations need no credential: the client sends none for them, so any key will do.
    const anyone = new EsignClient({ apiKey: 'svc_live_not_a_real_key', baseUrl });
    const report = await anyone.verifyDocument(Buffer.from(signed.bytes), {
      fileName: 'verify-me-signed.pdf',
    });
    expect(report.verdict).toBe('valid');
    expect(report.issued).toMatchObject({ exactMatch: true, document: { auditId: signed.auditId } });
    const check = await anyone.getIssuedDocument(signed.auditId, { hash: signed.fileHash });
    expect(check).toMatchObject({ exists: true, hashMatches: true, fileHash: signed.fileHash });
    const unknown = await apiErrorOf(anyone.getIssuedDocument('ESG-AAAA-BBBB-CCCC'));
    expect(unknown.status).toBe(404);
  });
});

describe('sandboxSign', () => {
  let sandbox: EsignClient;
  beforeAll(() => {
    sandbox = new EsignClient({ apiKey: sandboxToken, baseUrl });
  });

  it('returns the same mock signing data for the same URL', async () => {
    const first = await sandbox.sandboxSign({ document_url: 'https://example.com/sdk/contract.pdf' });
    const second = await sandbox.sandboxSign({ document_url: 'https://example.com/sdk/contract.pdf' });

    expect(first).toEqual(second);
    expect(first).toMatchObject({ sandbox: true, status: 'signed', fileName: 'contract.pdf' });
    expect(first.auditId).toMatch(/^SBX-/);
  });

  it('answers the magic URLs with their outcomes: declined, 400, 413', async () => {
    const declined = await sandbox.sandboxSign({ document_url: 'https://sandbox.example/declined.pdf' });
    const invalid = await apiErrorOf(
      sandbox.sandboxSign({ document_url: 'https://sandbox.example/invalid.pdf' }),
    );
    const tooLarge = await apiErrorOf(
      sandbox.sandboxSign({ document_url: 'https://sandbox.example/too-large.pdf' }),
    );

    expect(declined).toMatchObject({ status: 'declined', signedAt: null });
    expect(invalid.status).toBe(400);
    expect(invalid.message).toMatch(/document_url/);
    expect(tooLarge.status).toBe(413);
  });

  it('retries a 503 after Retry-After, then reports it with retryAfter', async () => {
    const started = Date.now();
    const error = await apiErrorOf(
      sandbox.sandboxSign({ document_url: 'https://sandbox.example/unavailable.pdf' }, { maxRetries: 1 }),
    );

    expect(error.status).toBe(503);
    expect(error.retryAfter).toBeGreaterThan(0);
    // One retry, after the Retry-After the gateway gave.
    expect(Date.now() - started).toBeGreaterThanOrEqual((error.retryAfter ?? 0) * 1000 - 50);
  });

  it('a live key on the sandbox is a 401', async () => {
    const error = await apiErrorOf(esign.sandboxSign({ document_url: 'https://example.com/a.pdf' }));

    expect(error.status).toBe(401);
    expect(error.message).toMatch(/sandbox/i);
  });
});
