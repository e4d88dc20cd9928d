import { PDFDocument, PDFName, PDFNumber } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '@esign/contracts';
import {
  inkAt,
  makeEncryptedPdf,
  makePdf,
  makePng,
  pdfInfo,
  pdfObject,
  pdfSig,
  pdfText,
  qpdfCheck,
  renderPage,
  runPdfTool,
} from '@esign/testing';
import { createSigner } from '../src/index';
import type { SignInput, Signer } from '../src/index';

let signer: Signer;
let base: Omit<SignInput, 'bytes'>;
const logged: { message: string; fields: Record<string, unknown> }[] = [];

beforeAll(async () => {
  signer = await createSigner({
    warn: () => undefined,
    info: (message, fields) => logged.push({ message, fields }),
  });
  base = {
    kind: 'pdf',
    fileName: 'statement.pdf',
    signature: { mode: 'draw', imageBase64: (await makePng({ color: '#000000' })).toString('base64') },
    positions: [{ x: 10, y: 10, page: 0, width: 40 }],
    signer: { name: 'Jane Doe', email: 'jane@example.com', ipAddress: '198.51.100.1', userAgent: 'Test/1.0' },
    receivedAt: '2026-11-21T10:00:00.000Z',
  };
});

const signError = async (bytes: Buffer): Promise<ServiceError> => {
  try {
    await signer.sign({ ...base, bytes });
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected signing to fail');
};

/**
 * A PDF with a classic cross-reference table and every object in plain text (no object streams), so
 * that it can be damaged as text: qpdf 11.3 rebuilds a lost table only from a `trailer` keyword.
 */
const classicPdf = async (pages: number, text: string): Promise<Buffer> => {
  const doc = await PDFDocument.load(await makePdf({ pages, text }));
  return Buffer.from(await doc.save({ useObjectStreams: false }));
};

/** A two-page PDF changed with pdf-lib's low-level API, written without object streams. */
const damagedPdf = async (damage: (doc: PDFDocument) => void): Promise<Buffer> => {
  const doc = await PDFDocument.load(await makePdf({ pages: 2, text: 'damaged' }));
  damage(doc);
  return Buffer.from(await doc.save({ useObjectStreams: false }));
};

const sealedDetails = (result: Awaited<ReturnType<Signer['sign']>>) =>
  result.events.find((e) => e.event === 'document.sealed')?.details ?? {};

const expectSignedAndValid = async (signed: Buffer, pages: number) => {
  const sig = await pdfSig(signed);
  expect(sig.stdout).toContain('Signature is Valid.');
  expect(sig.stdout).toContain('Total document signed');
  expect((await qpdfCheck(signed)).ok).toBe(true);
  expect((await pdfInfo(signed)).Pages).toBe(String(pages));
};

describe('PDFs that open without a password', () => {
  it.each([
    ['RC4 40-bit', { bits: 40 }],
    ['RC4 128-bit', { bits: 128 }],
    ['AES-128', { bits: 128, aes: true }],
    ['AES-256', { bits: 256 }],
  ] as const)('signs one encrypted with %s and an owner password only, decrypted', async (_, options) => {
    const encrypted = await makeEncryptedPdf(options);
    expect((await runPdfTool('qpdf', ['--show-encryption', '{file}'], encrypted)).stdout).toContain(
      'modify anything: not allowed',
    );
    const result = await signer.sign({ ...base, bytes: encrypted });

    await expectSignedAndValid(result.bytes, 3);
    // Decrypted: no encryption dictionary, and with it the owner's restrictions are gone.
    expect((await runPdfTool('qpdf', ['--show-encryption', '{file}'], result.bytes)).stdout).toContain(
      'File is not encrypted',
    );
    expect(await pdfText(result.bytes, 1)).toContain('secret (page 2)');
    expect(inkAt(await renderPage(result.bytes, 0), { x: 12, y: 12, width: 30, height: 5 })).toBeGreaterThan(
      0.05,
    );
    expect(sealedDetails(result)).toMatchObject({
      repaired: true,
      repairReason: 'encrypted',
      priorSignatures: 0,
      invalidatedSignatures: 0,
    });
    // The audit trail keeps the hash of what was uploaded, not of the decrypted copy.
    expect(result.events[0]?.details.size).toBe(encrypted.length);
  });

  it('refuses one that needs a password to open, saying so', async () => {
    const err = await signError(await makeEncryptedPdf({ userPassword: 'open sesame' }));
    expect(err).toMatchObject({ code: 'invalid_argument', field: 'file' });
    expect(err.message).toMatch(/^file: the PDF is password-protected/);
  });

  it('signs an encrypted document that was signed before anew, saying its signature no longer verifies', async () => {
    const signedOnce = (await signer.sign({ ...base, bytes: await makePdf({ pages: 1 }) })).bytes;
    const encrypted = await makeEncryptedPdf({ pdf: signedOnce });
    const result = await signer.sign({ ...base, bytes: encrypted });
    expect(sealedDetails(result)).toMatchObject({
      repaired: true,
      priorSignatures: 0,
      invalidatedSignatures: 1,
    });
    // Written anew, not appended to: the earlier bytes are not kept.
    expect(result.bytes.subarray(0, encrypted.length).equals(encrypted)).toBe(false);
    const [earlier, ours] = (await pdfSig(result.bytes)).stdout.split(/^Signature #\d+:$/m).slice(1);
    expect(earlier).toContain('Digest Mismatch');
    expect(ours).toContain('Total document signed');
    expect(ours).toContain('Signature is Valid.');
  });
});

describe('damaged PDFs', () => {
  it('signs a PDF whose page lists the catalog as its /Parent (a TypeError in pdf-lib before)', async () => {
    const bytes = await damagedPdf((doc) => {
      const root = doc.context.trailerInfo.Root;
      if (root) doc.getPage(0).node.set(PDFName.of('Parent'), root);
    });
    const result = await signer.sign({ ...base, bytes });
    await expectSignedAndValid(result.bytes, 3);
    expect(inkAt(await renderPage(result.bytes, 0), { x: 12, y: 12, width: 30, height: 5 })).toBeGreaterThan(
      0.05,
    );
  });

  it('signs a PDF whose page /Contents is a number, drawing the signature on it', async () => {
    const bytes = await damagedPdf((doc) => doc.getPage(0).node.set(PDFName.of('Contents'), PDFNumber.of(7)));
    const result = await signer.sign({ ...base, bytes });
    await expectSignedAndValid(result.bytes, 3);
    expect(inkAt(await renderPage(result.bytes, 0), { x: 12, y: 12, width: 30, height: 5 })).toBeGreaterThan(
      0.05,
    );
  });

  it('signs a PDF whose form lists its fields in something other than an array', async () => {
    const bytes = await damagedPdf((doc) => {
      doc.catalog.set(PDFName.of('AcroForm'), doc.context.obj({ Fields: PDFName.of('potato') }));
    });
    const result = await signer.sign({ ...base, bytes });
    await expectSignedAndValid(result.bytes, 3);
  });

  it('signs a PDF whose header comes after the first kilobyte, read from its header on', async () => {
    const bytes = Buffer.concat([Buffer.alloc(2000, 'x'), await classicPdf(2, 'late')]);
    logged.length = 0;
    const result = await signer.sign({ ...base, bytes });
    await expectSignedAndValid(result.bytes, 3);
    expect(await pdfText(result.bytes, 1)).toContain('late (page 2)');
    expect(sealedDetails(result)).toMatchObject({ repaired: true, repairReason: 'late-header' });
    // The fallback is logged with its reason and outcome, nothing about the document or the signer.
    expect(logged).toEqual([
      {
        message: 'pdf read from its late header before signing',
        fields: { reason: 'late-header', skipped: 2000 },
      },
    ]);
  });

  it('signs a PDF whose cross-reference offsets are all wrong and whose page tree is cut, rebuilt by qpdf', async () => {
    const broken = (await classicPdf(2, 'xref'))
      .toString('latin1')
      // Every offset of the table points to the wrong place…
      .replace(/^(\d{10}) 00000 n/gm, (_, n: string) => `${String(Number(n) + 7).padStart(10, '0')} 00000 n`)
      // …and the page tree root says it is something else, so pdf-lib's walk finds no pages.
      .replace('/Type /Pages', '/Type /Pagez');
    const result = await signer.sign({ ...base, bytes: Buffer.from(broken, 'latin1') });
    await expectSignedAndValid(result.bytes, 3);
    expect(await pdfText(result.bytes, 1)).toContain('xref (page 2)');
  });

  it('signs a PDF followed by more than a kilobyte of junk after %%EOF', async () => {
    const bytes = Buffer.concat([await makePdf({ pages: 1 }), Buffer.alloc(4096, 'y')]);
    const result = await signer.sign({ ...base, bytes });
    await expectSignedAndValid(result.bytes, 2);
  });

  it('refuses what qpdf cannot make a PDF of either, in words a person understands', async () => {
    const err = await signError(Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n'));
    expect(err).toMatchObject({ code: 'invalid_argument', field: 'file' });
    expect(err.message).toMatch(/^file: the PDF (is damaged and could not be repaired|has no pages)$/);
  });

  it('still refuses a truncated PDF (no %%EOF anywhere) instead of signing what is left of it', async () => {
    const whole = await makePdf({ pages: 2 });
    const err = await signError(whole.subarray(0, whole.lastIndexOf('%%EOF') - 20));
    expect(err.message).toContain('file: the PDF is truncated');
  });

  it('keeps the page tree check for a document that is already signed: it is countersigned, not rewritten', async () => {
    const first = await signer.sign({ ...base, bytes: await makePdf({ pages: 1 }) });
    const second = await signer.sign({ ...base, bytes: first.bytes });
    expect(second.bytes.subarray(0, first.bytes.length).equals(first.bytes)).toBe(true);
    expect(sealedDetails(second)).toMatchObject({ priorSignatures: 1 });
    expect(sealedDetails(second).repaired).toBeUndefined();
    expect(await pdfObject(second.bytes, 'trailer')).toContain('/Prev');
  });
});
