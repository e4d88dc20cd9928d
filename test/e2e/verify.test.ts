import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PDFDocument, PDFName, PDFRef, type PDFObject } from 'pdf-lib';
import jsQR from 'jsqr';
import { makePdf, makePng, pdfText, renderPage } from '@esign/testing';
import { createSigner } from '@esign/pdf-signer';
import type { VerificationReport as Report } from '../../libs/sdk/src/index.js';
import { baseUrl, createAccount, dataUri, errorOf, sign, type TestAccount } from './harness';

const run = promisify(execFile);
const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

const verify = async (bytes: Uint8Array, name = 'copy.pdf'): Promise<Report> => {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/pdf' }), name);
  const res = await fetch(`${baseUrl}/api/v1/verify`, { method: 'POST', body: form });
  if (res.status !== 200) throw new Error(`verify answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as Report;
};

/**
 * Append an incremental update by hand (pdf-lib has none): the objects `change` returns (changed or
 * new), a classic xref section for them and a trailer whose /Prev is the last startxref.
 */
const appendUpdate = async (pdf: Buffer, change: (doc: PDFDocument) => PDFRef[]): Promise<Buffer> => {
  const doc = await PDFDocument.load(pdf, { updateMetadata: false });
  const refs = change(doc);
  const prev = Number(/startxref\s+(\d+)\s+%%EOF\s*$/.exec(pdf.toString('latin1'))?.[1]);
  const parts: Buffer[] = [pdf, Buffer.from('\n')];
  let offset = pdf.length + 1;
  const offsets = new Map<number, number>();
  for (const ref of refs) {
    const obj = doc.context.lookup(ref) as PDFObject;
    const text = Buffer.from(`${ref.objectNumber} 0 obj\n${obj.toString()}\nendobj\n`, 'latin1');
    offsets.set(ref.objectNumber, offset);
    parts.push(text);
    offset += text.length;
  }
  const xrefAt = offset;
  const lines = ['xref', '0 1', '0000000000 65535 f '];
  for (const [num, at] of [...offsets].sort((a, b) => a[0] - b[0])) {
    lines.push(`${num} 1`, `${String(at).padStart(10, '0')} 00000 n `);
  }
  const size = doc.context.largestObjectNumber + 1;
  lines.push(
    'trailer',
    `<< /Size ${size} /Root ${doc.context.trailerInfo.Root?.toString() ?? ''} /Prev ${prev} >>`,
    'startxref',
    String(xrefAt),
    '%%EOF',
    '',
  );
  parts.push(Buffer.from(lines.join('\n'), 'latin1'));
  return Buffer.concat(parts);
};

/** Refs a page change touches: the page and its /Annots array when that is an object of its own. */
const pageRefs = (doc: PDFDocument): PDFRef[] => {
  const page = doc.getPage(0);
  const annots = page.node.get(PDFName.of('Annots'));
  return [page.ref, ...(annots instanceof PDFRef ? [annots] : [])];
};

let account: TestAccount;
let original: Buffer;
let auditId: string;
let other: Buffer;
let dir: string;

const signed = async (name: string) => {
  const png = await makePng();
  const res = await sign(account.apiKey, {
    file: { bytes: await makePdf({ pages: 2 }), name },
    fields: {
      signerName: 'Ada Lovelace',
      signerEmail: 'ada@example.com',
      signatureData: dataUri(png),
      positions: [{ x: 10, y: 70, page: 0, width: 20 }],
    },
  });
  expect(res.status).toBe(200);
  return { bytes: Buffer.from(await res.arrayBuffer()), auditId: res.headers.get('x-audit-id') ?? '' };
};

beforeAll(async () => {
  account = await createAccount();
  const first = await signed('contract.pdf');
  original = first.bytes;
  auditId = first.auditId;
  other = (await signed('other.pdf')).bytes;
  dir = await mkdtemp(join(tmpdir(), 'esign-verify-'));
}, 60_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('POST /api/v1/verify', () => {
  it('reports the untouched original as valid, whole, timestamped and ours', async () => {
    const report = await verify(original, 'contract-signed.pdf');
    expect(report.verdict).toBe('valid');
    expect(report.file).toEqual({
      name: 'contract-signed.pdf',
      size: original.length,
      sha256: sha256(original),
    });
    expect(report.issued.exactMatch).toBe(true);
    expect(report.issued.document).toMatchObject({
      auditId,
      fileHash: sha256(original),
      signerName: 'A*** L***',
      signerEmail: 'a***@example.com',
    });
    expect(JSON.stringify(report)).not.toContain('ada@example.com');
    expect(report.signatures).toHaveLength(1);
    const [sig] = report.signatures;
    expect(sig).toMatchObject({
      cryptographicallyValid: true,
      digestMatches: true,
      signatureVerifies: true,
      sealedByThisService: true,
      // PAdES B-LT: one update after the signature, that only adds long-term validation data.
      coversWholeFile: false,
      updatesAfter: 1,
      changesAfter: ['long-term validation data (DSS)'],
      problems: [],
    });
    expect(sig?.issuedAuditId).toBe(auditId);
    expect(sig?.signer).toMatch(/E-Signature Service/);
    expect(sig?.certificate?.serialNumber).toMatch(/^[0-9A-F]+$/);
    expect(sig?.timestamp).toMatchObject({ signatureValid: true, imprintMatches: true });
    expect(sig?.timestamp?.authority).toMatch(/esign test TSA/);
    // The TSA's time is within a minute of the signing time.
    expect(
      Math.abs(Date.parse(sig?.timestamp?.time ?? '') - Date.parse(sig?.signingTime ?? '')),
    ).toBeLessThan(60_000);
    expect(report.summary).toContain(auditId);
  });

  it('finds a byte changed inside the signed range', async () => {
    const tampered = Buffer.from(original);
    // A byte of the first page's content, well inside the first signed range.
    const at = tampered.indexOf('stream') + 20;
    tampered[at] = (tampered[at] ?? 0) ^ 0x01;
    const report = await verify(tampered);
    expect(report.verdict).toBe('invalid');
    expect(report.signatures[0]).toMatchObject({ cryptographicallyValid: false, digestMatches: false });
    expect(report.signatures[0]?.problems.join(' ')).toMatch(/changed/);
    expect(report.issued).toEqual({ exactMatch: false, document: null });
  });

  it('says what an incremental update after the seal added: new page content', async () => {
    const updated = await appendUpdate(original, (doc) => {
      const bytes = Buffer.from('1 0 0 rg 50 50 200 80 re f');
      const stream = doc.context.register(doc.context.stream(bytes, { Length: bytes.length }));
      doc.getPage(0).node.addContentStream(stream);
      return [...pageRefs(doc), stream];
    });
    const report = await verify(updated);
    expect(report.verdict).toBe('modified');
    const [sig] = report.signatures;
    expect(sig).toMatchObject({ cryptographicallyValid: true, coversWholeFile: false, updatesAfter: 2 });
    expect(sig?.changesAfter).toContain('a page (its content or annotations)');
    expect(sig?.changesAfter).toContain('a content stream (text or graphics drawn on a page)');
    // Not the file we issued, but its signed revision is: we say which, and that it was changed.
    expect(report.issued.exactMatch).toBe(false);
    expect(report.issued.document?.auditId).toBe(auditId);
    expect(report.summary).toMatch(/changed after we issued it/);
  });

  it('says what an incremental update after the seal added: an annotation', async () => {
    const updated = await appendUpdate(original, (doc) => {
      const annot = doc.context.register(
        doc.context.obj({ Type: 'Annot', Subtype: 'Square', Rect: [50, 50, 250, 130], C: [1, 0, 0] }),
      );
      doc.getPage(0).node.addAnnot(annot);
      return [...pageRefs(doc), annot];
    });
    const report = await verify(updated);
    expect(report.verdict).toBe('modified');
    expect(report.signatures[0]?.cryptographicallyValid).toBe(true);
    expect(report.signatures[0]?.changesAfter).toContain('an annotation (Square)');
  });

  it('says what an incremental update after the seal added: a changed form value', async () => {
    const updated = await appendUpdate(original, (doc) => {
      const field = doc.context.register(
        doc.context.obj({ FT: 'Tx', T: 'amount', V: '1000000', Rect: [0, 0, 0, 0] }),
      );
      return [field];
    });
    const report = await verify(updated);
    expect(report.verdict).toBe('modified');
    expect(report.signatures[0]?.changesAfter).toContain("a form field's value");
  });

  it('refuses a signature copied from another document', async () => {
    // Our signature value from `other`, put in the place of the one `original` carries.
    const gap = (pdf: Buffer) => {
      const m = /\/ByteRange \[0 (\d+) (\d+) \d+\s*\]/.exec(pdf.toString('latin1'));
      return [Number(m?.[1]), Number(m?.[2])] as const;
    };
    const [start, end] = gap(original);
    const [otherStart, otherEnd] = gap(other);
    expect(end - start).toBe(otherEnd - otherStart);
    const forged = Buffer.from(original);
    other.copy(forged, start, otherStart, otherEnd);
    const report = await verify(forged);
    expect(report.verdict).toBe('invalid');
    expect(report.signatures[0]).toMatchObject({
      cryptographicallyValid: false,
      digestMatches: false,
      // The copied signature is genuine: only over other bytes.
      signatureVerifies: true,
      sealedByThisService: true,
    });
    expect(report.issued.document).toBeNull();
  });

  it("reports a document signed by someone else's certificate as valid but not ours", async () => {
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '30',
      '-subj',
      '/CN=Mallory Signing Ltd/O=Elsewhere',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ]);
    const stranger = await createSigner({
      signing: {
        keyPem: await readFile(join(dir, 'key.pem'), 'utf8'),
        certPem: await readFile(join(dir, 'cert.pem'), 'utf8'),
      },
      warn: () => undefined,
    });
    const theirs = await stranger.sign({
      bytes: await makePdf(),
      kind: 'pdf',
      fileName: 'theirs.pdf',
      signature: { mode: 'type', typedName: 'Mallory', color: '#000000' },
      positions: [{ x: 10, y: 70, page: 0, width: 20 }],
      signer: { name: 'Mallory', email: 'm@example.net', ipAddress: '203.0.113.9', userAgent: 'x' },
      receivedAt: new Date().toISOString(),
    });
    const report = await verify(theirs.bytes);
    expect(report.verdict).toBe('valid');
    expect(report.signatures[0]).toMatchObject({
      cryptographicallyValid: true,
      sealedByThisService: false,
      signer: 'Mallory Signing Ltd',
      timestamp: null,
    });
    expect(report.signatures[0]?.certificate?.issuer).toContain('Mallory Signing Ltd');
    expect(report.issued).toEqual({ exactMatch: false, document: null });
    expect(report.summary).toMatch(/not a document we issued/);
  });

  it('does not recognise a copy re-saved by another program (qpdf)', async () => {
    await writeFile(join(dir, 'in.pdf'), original);
    await run('qpdf', [join(dir, 'in.pdf'), join(dir, 'out.pdf')]);
    const resaved = await readFile(join(dir, 'out.pdf'));
    expect(sha256(resaved)).not.toBe(sha256(original));
    const report = await verify(resaved);
    expect(report.issued).toEqual({ exactMatch: false, document: null });
    expect(report.verdict).not.toBe('valid');
    expect(report.signatures[0]?.cryptographicallyValid).toBe(false);
  });

  it('reports a truncated file: cut in the signed range, and cut after it', async () => {
    const half = await verify(original.subarray(0, Math.floor(original.length / 2)));
    expect(half.verdict).toBe('invalid');
    expect(half.problems.join(' ')).toMatch(/truncated/);
    expect(half.signatures[0]?.cryptographicallyValid).toBe(false);
    expect(half.signatures[0]?.problems.join(' ')).toMatch(/truncated/);
    expect(half.issued.document).toBeNull();
    // Cut inside the DSS update: the signature is whole and verifies, the file does not.
    const tail = await verify(original.subarray(0, original.length - 200));
    expect(tail.verdict).toBe('invalid');
    expect(tail.problems.join(' ')).toMatch(/truncated/);
    expect(tail.signatures[0]?.cryptographicallyValid).toBe(true);
    expect(tail.issued.exactMatch).toBe(false);
  });

  it('reports an unsigned PDF and refuses what is not a PDF', async () => {
    const report = await verify(await makePdf());
    expect(report.verdict).toBe('unsigned');
    expect(report.signatures).toEqual([]);
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(Buffer.from('hello, not a pdf'))]), 'x.txt');
    const res = await fetch(`${baseUrl}/api/v1/verify`, { method: 'POST', body: form });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatch(/file/);
  });
});

describe('the audit page', () => {
  it('prints the verification address and a QR code of it that a reader decodes', async () => {
    // The audit page is the last page (the original had two).
    const text = await pdfText(original, 2);
    const url = /https?:\/\/\S+\/verify\/[A-Z0-9-]+/.exec(text)?.[0];
    expect(url).toMatch(new RegExp(`/verify/${auditId}$`));
    const page = await renderPage(original, 2, 150);
    // jsQR wants RGBA; the render is RGB.
    const rgba = new Uint8ClampedArray(page.width * page.height * 4);
    for (let i = 0, j = 0; i < page.data.length; i += 3, j += 4) {
      rgba[j] = page.data[i] ?? 0;
      rgba[j + 1] = page.data[i + 1] ?? 0;
      rgba[j + 2] = page.data[i + 2] ?? 0;
      rgba[j + 3] = 255;
    }
    expect(jsQR(rgba, page.width, page.height)?.data).toBe(url);
  });
});

describe('GET /api/v1/verify/{auditId}', () => {
  it('says when a document was signed and the hash we issued, and whether a copy matches', async () => {
    const res = await fetch(`${baseUrl}/api/v1/verify/${auditId}`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      exists: true,
      auditId,
      fileHash: sha256(original),
      signerEmail: 'a***@example.com',
      hashMatches: null,
    });
    expect(typeof body.signedAt).toBe('string');
    const match = await fetch(`${baseUrl}/api/v1/verify/${auditId}?hash=${sha256(original)}`);
    expect(((await match.json()) as { hashMatches: boolean }).hashMatches).toBe(true);
    const differ = await fetch(`${baseUrl}/api/v1/verify/${auditId}?hash=${sha256(other)}`);
    expect(((await differ.json()) as { hashMatches: boolean }).hashMatches).toBe(false);
  });

  it('answers 404 with a JSON error for an unknown audit ID, 400 for a malformed hash', async () => {
    const unknown = await fetch(`${baseUrl}/api/v1/verify/ESG-0000-0000-0000`);
    expect(unknown.status).toBe(404);
    expect(await errorOf(unknown)).toMatch(/ESG-0000-0000-0000/);
    const malformed = await fetch(`${baseUrl}/api/v1/verify/${auditId}?hash=md5:abc`);
    expect(malformed.status).toBe(400);
    expect(await errorOf(malformed)).toMatch(/hash/);
  });
});
