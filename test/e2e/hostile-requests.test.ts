import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument } from 'pdf-lib';
import { makePdf } from '@esign/testing';
import { auth, baseUrl, createAccount, errorOf, sign, type TestAccount } from './harness';

/** Requests an ordinary or a hostile client sends that once answered 500 or went wrong quietly. */
let account: TestAccount;
let pdf: Buffer;

beforeAll(async () => {
  account = await createAccount('business');
  pdf = await makePdf({ pages: 1 });
});

const typed = { signerName: 'Ada Lovelace', signerEmail: 'ada@example.com', mode: 'type', typedName: 'Ada' };

/** A PDF of exactly `bytes` bytes (an unreferenced stream pads it). */
const pdfOfSize = async (bytes: number): Promise<Buffer> => {
  const padded = async (n: number) => {
    const doc = await PDFDocument.load(pdf);
    doc.context.register(doc.context.stream(new Uint8Array(n)));
    return Buffer.from(await doc.save({ useObjectStreams: false }));
  };
  // Numbers in the file (the stream's /Length, offsets) grow with it: converge in a few steps.
  let n = 1000;
  let out = await padded(n);
  for (let i = 0; i < 4 && out.length !== bytes; i++) {
    n += bytes - out.length;
    out = await padded(n);
  }
  expect(out.length).toBe(bytes);
  return out;
};

describe('the document list refuses values Postgres cannot take, as 400', () => {
  it.each([
    ['?search=%00', /^search must not contain NUL/],
    ['?dateFrom=0000-01-01', /^dateFrom must be an ISO date/],
    ['?dateTo=10000-01-01', /^dateTo must be an ISO date/],
  ])('%s', async (query, message) => {
    const res = await fetch(`${baseUrl}/api/v1/documents${query}`, { headers: auth(account.apiKey) });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatch(message);
  });

  it('takes the last day there is as an open upper bound', async () => {
    const res = await fetch(`${baseUrl}/api/v1/documents?dateFrom=0001-01-01&dateTo=9999-12-31`, {
      headers: auth(account.apiKey),
    });
    expect(res.status).toBe(200);
    await res.body?.cancel();
  });
});

describe('sign', () => {
  it.each([
    ['signerName', { ...typed, signerName: '\u200b\u200c\u200d\ufeff' }],
    ['typedName', { ...typed, typedName: '\u200b\u2060 \u200b' }],
  ])('treats a %s of only zero-width characters as empty (400)', async (field, fields) => {
    const res = await sign(account.apiKey, { file: { bytes: pdf, name: 'a.pdf' }, fields });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatch(new RegExp(`^${field}`));
  });

  it('keeps a UTF-8 file name as sent by curl and browsers (not read as Latin-1)', async () => {
    // What curl and browsers send: the name's UTF-8 bytes in a plain filename="…" parameter.
    const boundary = 'x-boundary-utf8';
    const parts = [
      ...Object.entries(typed).map(
        ([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`,
      ),
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="Résumé – 履歴書.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
    ];
    const body = Buffer.concat([
      Buffer.from(parts.join(''), 'utf8'),
      pdf,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await fetch(`${baseUrl}/api/v1/sign`, {
      method: 'POST',
      headers: { ...auth(account.apiKey), 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-disposition')).toContain(
      `filename*=UTF-8''${encodeURIComponent('Résumé – 履歴書-signed.pdf')}`,
    );
    const auditId = res.headers.get('x-audit-id') ?? '';
    await res.arrayBuffer();
    const record = (await (
      await fetch(`${baseUrl}/api/v1/documents/${auditId}`, { headers: auth(account.apiKey) })
    ).json()) as { fileName: string };
    expect(record.fileName).toBe('Résumé – 履歴書.pdf');
  });

  it('signs a PDF whose header comes after 1 KB of junk, as other readers open it', async () => {
    const junk = Buffer.concat([Buffer.alloc(2048, 0x20), pdf]);
    const res = await sign(account.apiKey, { file: { bytes: junk, name: 'late-header.pdf' }, fields: typed });
    expect(res.status).toBe(200);
    const signed = Buffer.from(await res.arrayBuffer());
    expect(signed.subarray(0, 5).toString()).toBe('%PDF-');
  });

  it('accepts a PDF of exactly 25 MB (26,214,400 bytes) and refuses one byte more with 413', async () => {
    const limit = 25 * 1024 * 1024;
    const exact = await pdfOfSize(limit);
    const accepted = await sign(account.apiKey, { file: { bytes: exact, name: 'big.pdf' }, fields: typed });
    expect(accepted.status).toBe(200);
    const signed = Buffer.from(await accepted.arrayBuffer());
    expect(accepted.headers.get('x-file-hash')).toBe(
      `sha256:${createHash('sha256').update(signed).digest('hex')}`,
    );
    const over = Buffer.concat([exact, Buffer.from('\n')]);
    const refused = await sign(account.apiKey, { file: { bytes: over, name: 'big.pdf' }, fields: typed });
    expect(refused.status).toBe(413);
  });
});
