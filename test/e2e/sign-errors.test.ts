import { request } from 'node:http';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeEncryptedPdf, makeInflatingPdf, makePdf, makePng, makeTruncatedPdf } from '@esign/testing';
import { baseUrl, createAccount, dataUri, errorOf, sign, type TestAccount } from './harness';

let account: TestAccount;
let pdf: Buffer;
let signature: string;
const signer = { signerName: 'Ada Lovelace', signerEmail: 'ada@example.com' };

beforeAll(async () => {
  account = await createAccount('business');
  pdf = await makePdf({ pages: 2 });
  signature = dataUri(await makePng({ width: 300, height: 100 }));
});

const expectError = async (
  fields: Record<string, string | number | object>,
  status: number,
  pattern: RegExp,
  file: { bytes: Buffer; name: string } | null = { bytes: pdf, name: 'doc.pdf' },
) => {
  const res = await sign(account.apiKey, { file: file ?? undefined, fields });
  expect(res.status).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(await errorOf(res)).toMatch(pattern);
};

describe('POST /api/v1/sign rejects bad input with a JSON error naming the field', () => {
  it.each([
    ['no file', undefined, {}, /^file is required/],
    ['no signerName', 'file', { signerEmail: 'a@b.co', signatureData: 'S' }, /^signerName is required/],
    ['no signerEmail', 'file', { signerName: 'A', signatureData: 'S' }, /^signerEmail must be an email/],
    [
      'a bad signerEmail',
      'file',
      { ...signer, signerEmail: 'not-an-email', signatureData: 'S' },
      /^signerEmail/,
    ],
    ['no signatureData in draw mode', 'file', { ...signer }, /^signatureData is required in draw mode/],
    [
      'no signatureData in upload mode',
      'file',
      { ...signer, mode: 'upload' },
      /^signatureData is required in upload mode/,
    ],
    [
      'signatureData that is not an image data URI',
      'file',
      { ...signer, signatureData: 'data:text/plain;base64,aGk=' },
      /^signatureData must be a base64 data URI/,
    ],
    [
      'no typedName in type mode',
      'file',
      { ...signer, mode: 'type' },
      /^typedName is required when mode=type/,
    ],
    [
      'an unknown mode',
      'file',
      { ...signer, mode: 'stamp', signatureData: 'S' },
      /^mode must be draw, type or upload/,
    ],
    ['x above 100', 'file', { ...signer, signatureData: 'S', x: 100.1 }, /^x must be a number from 0 to 100/],
    ['y below 0', 'file', { ...signer, signatureData: 'S', y: -0.5 }, /^y must be a number from 0 to 100/],
    [
      'width below 10',
      'file',
      { ...signer, signatureData: 'S', width: 9 },
      /^width must be a number from 10 to 60/,
    ],
    [
      'width above 60',
      'file',
      { ...signer, signatureData: 'S', width: 61 },
      /^width must be a number from 10 to 60/,
    ],
    ['a negative page', 'file', { ...signer, signatureData: 'S', page: -1 }, /^page must be an integer/],
    ['a fractional page', 'file', { ...signer, signatureData: 'S', page: 0.5 }, /^page must be an integer/],
    [
      'positions that are not JSON',
      'file',
      { ...signer, signatureData: 'S', positions: '[{x:1' },
      /^positions must be a JSON array/,
    ],
    [
      'positions that are empty',
      'file',
      { ...signer, signatureData: 'S', positions: [] },
      /^positions must hold at least one/,
    ],
    [
      'a position out of bounds',
      'file',
      {
        ...signer,
        signatureData: 'S',
        positions: [
          { x: 1, y: 1, page: 0, width: 10 },
          { x: 1, y: 1, page: 0, width: 70 },
        ],
      },
      /^positions\[1\]\.width/,
    ],
    [
      'a position without page',
      'file',
      { ...signer, signatureData: 'S', positions: [{ x: 1, y: 1, width: 20 }] },
      /^positions\[0\]\.page/,
    ],
    [
      'a bad sigColor',
      'file',
      { ...signer, mode: 'type', typedName: 'A', sigColor: 'navy' },
      /^sigColor: must be a hex colour/,
    ],
  ] as [string, string | undefined, Record<string, string | number | object>, RegExp][])(
    '%s',
    async (_name, withFile, fields, pattern) => {
      // 'S' stands for a real signature image, made once in beforeAll.
      const realSignature: Record<string, string> =
        fields.signatureData === 'S' ? { signatureData: signature } : {};
      await expectError(
        { ...fields, ...realSignature },
        400,
        pattern,
        withFile ? { bytes: pdf, name: 'doc.pdf' } : null,
      );
    },
  );

  it('names page when the single page field points past the document', async () => {
    await expectError(
      { ...signer, signatureData: signature, page: 2 },
      400,
      /page 2 does not exist.*2 pages/,
    );
  });

  it('names the position whose page is past the document', async () => {
    await expectError(
      {
        ...signer,
        signatureData: signature,
        positions: [
          { x: 1, y: 1, page: 0, width: 20 },
          { x: 1, y: 1, page: 5, width: 20 },
        ],
      },
      400,
      /positions\[1\].*page 5 does not exist/,
    );
  });

  it.each([
    [
      'a PDF that needs a password to open',
      () => makeEncryptedPdf({ userPassword: 'open' }),
      /^file: the PDF is password-protected/,
    ],
    ['a truncated PDF', async () => makeTruncatedPdf(), /file/i],
    [
      'a PDF header followed by garbage',
      () => Promise.resolve(Buffer.from('%PDF-1.7\n' + 'x'.repeat(5000))),
      /file/i,
    ],
    [
      'an image type that is not supported',
      () => Promise.resolve(Buffer.from('GIF89a' + '\0'.repeat(100))),
      /^file must be one of PDF, PNG, JPEG/,
    ],
    ['an empty file', () => Promise.resolve(Buffer.alloc(0)), /^file is empty/],
    [
      'a decompression bomb (256 KB that inflates to 256 MB)',
      () => makeInflatingPdf(256 * 1024 * 1024),
      /^file: .*inflate to more than 128 MB/,
    ],
  ])('answers 400, never 500 or a hang, for %s', async (_name, make, pattern) => {
    const bytes = await make();
    await expectError({ ...signer, signatureData: signature }, 400, pattern, { bytes, name: 'bad.pdf' });
  });

  it('answers 400 when the body is not multipart/form-data', async () => {
    const res = await fetch(`${baseUrl}/api/v1/sign`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${account.apiKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ signerName: 'A' }),
    });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatch(/multipart\/form-data/);
  });

  it('answers 413 as soon as the upload passes 25 MB, without reading the rest of the body', async () => {
    const boundary = '----e2e413';
    const head = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="signerName"\r\n\r\nAda\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-1.7\n`,
    );
    const total = 60 * 1024 * 1024;
    const chunk = Buffer.alloc(256 * 1024, 0x41);
    const url = new URL(`${baseUrl}/api/v1/sign`);
    const result = await new Promise<{ status: number; body: string; sentAtResponse: number }>(
      (resolve, reject) => {
        let sent = 0;
        let responded = false;
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: {
              Authorization: `Bearer ${account.apiKey}`,
              'Content-Type': `multipart/form-data; boundary=${boundary}`,
              'Content-Length': String(head.length + total),
            },
          },
          (res) => {
            responded = true;
            const sentAtResponse = sent;
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (d: string) => (body += d));
            res.on('end', () => {
              resolve({ status: res.statusCode ?? 0, body, sentAtResponse });
              req.destroy();
            });
          },
        );
        req.on('error', (err) => {
          if (!responded) reject(err);
        });
        req.write(head);
        const pump = () => {
          while (!responded && sent < total) {
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          if (!responded) req.end();
        };
        pump();
      },
    );
    expect(result.status).toBe(413);
    expect((JSON.parse(result.body) as { error: string }).error).toMatch(/file exceeds the 25 MB limit/);
    // The gateway answered long before the 60 MB body was through.
    expect(result.sentAtResponse).toBeLessThan(40 * 1024 * 1024);
  });
});
