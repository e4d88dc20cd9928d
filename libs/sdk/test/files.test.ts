import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EsignClient, fileNameOfDisposition, type FileInput } from '../src/index.js';
import { formOf, json, signedPdf, startLocalServer, type LocalServer } from './local-server.js';

const PDF = Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\n%%EOF\n');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
const FIELDS = {
  signerName: 'Ada Lovelace',
  signerEmail: 'ada@example.com',
  mode: 'type',
  typedName: 'Ada',
} as const;

let dir = '';
let server: LocalServer | undefined;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'esign-sdk-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const signServer = async () => {
  server = await startLocalServer((_req, res) => signedPdf(res));
  return {
    sut: new EsignClient({ apiKey: 'svc_live_test', baseUrl: `${server.baseUrl}/` }),
    requests: server.requests,
  };
};

/** The file part the server received: its name and bytes. */
const uploaded = async (req: Parameters<typeof formOf>[0]) => {
  const form = await formOf(req);
  const file = form.get('file');
  if (!(file instanceof Blob)) throw new Error('no file part');
  return { form, name: 'name' in file ? file.name : undefined, bytes: Buffer.from(await file.arrayBuffer()) };
};

describe('signDocument file inputs', () => {
  const cases: [string, () => Promise<FileInput> | FileInput, string, Buffer][] = [
    [
      'a path (read from disk, named after it)',
      async () => {
        const path = join(dir, 'lease.pdf');
        await writeFile(path, PDF);
        return path;
      },
      'lease.pdf',
      PDF,
    ],
    ['a Buffer (named from its content)', () => PDF, 'document.pdf', PDF],
    ['a PNG Uint8Array', () => new Uint8Array(PNG), 'document.png', PNG],
    [
      'an ArrayBuffer',
      () => PDF.buffer.slice(PDF.byteOffset, PDF.byteOffset + PDF.byteLength),
      'document.pdf',
      PDF,
    ],
    ['a Blob', () => new Blob([PDF], { type: 'application/pdf' }), 'document.pdf', PDF],
    [
      'a file stream (named after its path)',
      async () => {
        const path = join(dir, 'stream.pdf');
        await writeFile(path, PDF);
        return createReadStream(path, { highWaterMark: 8 });
      },
      'stream.pdf',
      PDF,
    ],
    ['a Readable of chunks', () => Readable.from([PDF.subarray(0, 5), PDF.subarray(5)]), 'document.pdf', PDF],
  ];

  it.each(cases)('uploads %s', async (_name, make, expectedName, expectedBytes) => {
    const { sut, requests } = await signServer();

    await sut.signDocument({ ...FIELDS, file: await make() });

    const part = await uploaded(requests[0] ?? expect.fail('no request'));
    expect(part.name).toBe(expectedName);
    expect(part.bytes.equals(expectedBytes)).toBe(true);
  });

  it('takes a file name option over the default', async () => {
    const { sut, requests } = await signServer();

    await sut.signDocument({ ...FIELDS, file: PDF, fileName: 'Vertrag März.pdf' });

    expect((await uploaded(requests[0] ?? expect.fail('no request'))).name).toBe('Vertrag März.pdf');
  });

  it('sends the fields as text, positions as JSON, leaves unset fields out, and authenticates', async () => {
    const { sut, requests } = await signServer();
    const positions = [
      { x: 10, y: 20, page: 0, width: 30 },
      { x: 60.5, y: 80, page: 1, width: 25 },
    ];

    await sut.signDocument({ ...FIELDS, file: PDF, sigColor: '#112233', width: 40, positions, x: undefined });

    const req = requests[0] ?? expect.fail('no request');
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/api/v1/sign');
    expect(req.headers.authorization).toBe('Bearer svc_live_test');
    expect(req.headers.accept).toBe('application/pdf, application/json');
    const { form } = await uploaded(req);
    expect(Object.fromEntries([...form.entries()].filter(([k]) => k !== 'file'))).toEqual({
      signerName: 'Ada Lovelace',
      signerEmail: 'ada@example.com',
      mode: 'type',
      typedName: 'Ada',
      sigColor: '#112233',
      width: '40',
      positions: JSON.stringify(positions),
    });
  });

  it('sends a collected stream again, byte for byte, when it retries', async () => {
    server = await startLocalServer((_req, res, i) =>
      i === 0 ? json(res, 503, { error: 'retry' }, { 'Retry-After': '0' }) : signedPdf(res),
    );
    const sut = new EsignClient({ apiKey: 'svc_live_test', baseUrl: server.baseUrl, retryBaseDelayMs: 10 });

    await sut.signDocument({ ...FIELDS, file: Readable.from([PDF]) });

    const [first, second] = await Promise.all(server.requests.map(uploaded));
    expect(first?.bytes.equals(PDF)).toBe(true);
    expect(second?.bytes.equals(PDF)).toBe(true);
  });

  it('returns the bytes and what the headers say', async () => {
    server = await startLocalServer((_req, res) =>
      signedPdf(res, {
        'Content-Disposition': `attachment; filename="Vertrag M_rz-signed.pdf"; filename*=UTF-8''Vertrag%20M%C3%A4rz-signed.pdf`,
        'Idempotent-Replayed': 'true',
      }),
    );
    const sut = new EsignClient({ apiKey: 'svc_live_test', baseUrl: server.baseUrl });

    const signed = await sut.signDocument({ ...FIELDS, file: PDF });

    expect(Buffer.from(signed.bytes).toString()).toBe('%PDF-1.7\n%fake signed\n');
    expect(signed).toMatchObject({
      auditId: 'ESG-AAAA-BBBB-CCCC',
      signedAt: '2026-11-23T12:00:00.000Z',
      fileHash: 'sha256:0000',
      fileName: 'Vertrag März-signed.pdf',
      replayed: true,
    });
  });
});

describe('fileNameOfDisposition', () => {
  it('prefers filename*, falls back to filename, unescapes quotes', () => {
    expect(fileNameOfDisposition(`attachment; filename="a_b.pdf"; filename*=UTF-8''a%C3%A9b.pdf`)).toBe(
      'aéb.pdf',
    );
    expect(fileNameOfDisposition('attachment; filename="say \\"hi\\".pdf"')).toBe('say "hi".pdf');
    expect(fileNameOfDisposition('attachment; filename=plain.pdf')).toBe('plain.pdf');
    expect(fileNameOfDisposition(null)).toBeUndefined();
  });
});
