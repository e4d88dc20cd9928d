import { X509Certificate } from 'node:crypto';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '@esign/contracts';
import { inkAt, makePdf, makePng, pdfInfo, pdfSig, pdfText, qpdfCheck, renderPage } from '@esign/testing';
import { createSigner } from '../src/index';
import type { SignInput, Signer } from '../src/index';
import { drawnSignatureInput } from './sign-input';

let signer: Signer;
let png: string;

beforeAll(async () => {
  signer = await createSigner({ warn: () => undefined });
  png = (await makePng()).toString('base64');
});

const input = (bytes: Buffer, name: string, x = 10): SignInput =>
  drawnSignatureInput({ bytes, name, pngBase64: png, x });

/** pdfsig's report, one entry per signature in file order. */
const signatures = async (pdf: Buffer) =>
  (await pdfSig(pdf)).stdout
    .split(/^Signature #\d+:$/m)
    .slice(1)
    .map((block) => ({
      valid: block.includes('Signature Validation: Signature is Valid.'),
      wholeFile: block.includes('Total document signed'),
      field: /Signature Field Name: (.*)/.exec(block)?.[1]?.trim(),
    }));

describe('signing a document that is already signed', () => {
  it('appends to it, so that every earlier signature still verifies', async () => {
    const original = await makePdf({ pages: 2 });
    const first = await signer.sign(input(original, 'Alice', 10));
    const second = await signer.sign(input(first.bytes, 'Bob', 40));
    const third = await signer.sign(input(second.bytes, 'Carol', 70));

    // The earlier files are kept byte for byte at the start of the later ones.
    expect(second.bytes.subarray(0, first.bytes.length).equals(first.bytes)).toBe(true);
    expect(third.bytes.subarray(0, second.bytes.length).equals(second.bytes)).toBe(true);

    expect(await signatures(third.bytes)).toEqual([
      { valid: true, wholeFile: false, field: `Signature ${first.auditId}` },
      { valid: true, wholeFile: false, field: `Signature ${second.auditId}` },
      { valid: true, wholeFile: true, field: `Signature ${third.auditId}` },
    ]);
    expect((await qpdfCheck(third.bytes)).ok).toBe(true);
    // Two pages, then one audit page per signing.
    expect((await pdfInfo(third.bytes)).Pages).toBe('5');
    expect(third.pageCount).toBe(5);
    expect(await pdfText(third.bytes, 4)).toContain(third.auditId);
    expect(await pdfText(third.bytes, 3)).toContain(second.auditId);
    // The audit trail says what it kept; the original hash is of the file that was countersigned.
    expect(third.events.find((e) => e.event === 'document.sealed')?.details).toMatchObject({
      priorSignatures: 2,
    });
    expect(first.events.find((e) => e.event === 'document.sealed')?.details).toMatchObject({
      priorSignatures: 0,
    });

    // All three stamps are on the first page.
    const page = await renderPage(third.bytes, 0);
    for (const x of [10, 40, 70]) {
      expect(inkAt(page, { x: x + 2, y: 81, width: 16, height: 3 })).toBeGreaterThan(0);
    }
  });

  it('at PAdES B-LT, adds a DSS after each seal and every earlier signature still verifies', async () => {
    const lt = (bytes: Buffer, name: string, x: number): SignInput => ({
      ...input(bytes, name, x),
      padesLevel: 'B-LT',
    });
    const first = await signer.sign(lt(await makePdf(), 'Alice', 10));
    const second = await signer.sign(lt(first.bytes, 'Bob', 40));
    // Each signature is followed by its DSS update: none covers the whole file, all verify.
    expect(await signatures(second.bytes)).toEqual([
      { valid: true, wholeFile: false, field: `Signature ${first.auditId}` },
      { valid: true, wholeFile: false, field: `Signature ${second.auditId}` },
    ]);
    expect((await qpdfCheck(second.bytes)).ok).toBe(true);
    expect(second.events.find((e) => e.event === 'document.sealed')?.details).toMatchObject({
      padesLevel: 'B-LT',
      priorSignatures: 1,
    });
    // The catalog's /DSS lists the signing certificate (as a stream), the first seal's entries kept.
    const doc = await PDFDocument.load(second.bytes);
    const dss = doc.catalog.lookup(PDFName.of('DSS'), PDFDict);
    const certs = dss.lookup(PDFName.of('Certs'), PDFArray);
    expect(certs.size()).toBeGreaterThanOrEqual(2);
    const der = Buffer.from(certs.lookup(0, PDFRawStream).getContents());
    expect(new X509Certificate(der).fingerprint256).toBe(signer.certificateFingerprint);
    // The DSS update was written into room left after the sealed file, not into a copy of it: the
    // signed PDF is a view at the start of a slightly larger buffer of its own.
    for (const signed of [first, second]) {
      expect(signed.bytes.byteOffset).toBe(0);
      expect(signed.bytes.buffer.byteLength).toBeGreaterThan(signed.bytes.length);
      expect(signed.bytes.buffer.byteLength - signed.bytes.length).toBeLessThan(64 * 1024);
    }
  });

  it('appends to a file whose last cross-reference section is a stream, without reusing its object numbers', async () => {
    // A form with a signature field holding a (placeholder) signature, saved with object streams.
    const doc = await PDFDocument.create();
    doc.addPage([600, 800]).drawText('Earlier content', { x: 50, y: 700 });
    const { context } = doc;
    const sig = context.register(
      context.obj({ Type: 'Sig', Filter: 'Adobe.PPKLite', SubFilter: 'adbe.pkcs7.detached' }),
    );
    const field = context.register(
      context.obj({ FT: 'Sig', V: sig, Type: 'Annot', Subtype: 'Widget', Rect: [0, 0, 0, 0] }),
    );
    doc.catalog.set(PDFName.of('AcroForm'), context.obj({ Fields: [field], SigFlags: 3 }));
    const original = Buffer.from(await doc.save({ useObjectStreams: true }));
    expect(original.toString('latin1')).toContain('/Type /XRef');

    const signed = await signer.sign(input(original, 'Dana'));
    expect(signed.bytes.subarray(0, original.length).equals(original)).toBe(true);
    const check = await qpdfCheck(signed.bytes);
    expect(check.ok, check.stdout + check.stderr).toBe(true);
    expect(check.stdout + check.stderr).not.toMatch(/WARNING/);
    expect((await signatures(signed.bytes)).at(-1)).toMatchObject({ valid: true, wholeFile: true });
    expect(await pdfText(signed.bytes, 0)).toContain('Earlier content');
    expect(await pdfText(signed.bytes, 1)).toContain(signed.auditId);
  });

  it('refuses a certified document (DocMDP) instead of breaking its certification', async () => {
    const doc = await PDFDocument.create();
    doc.addPage();
    const { context } = doc;
    const sig = context.register(context.obj({ Type: 'Sig', Filter: 'Adobe.PPKLite' }));
    const field = context.register(context.obj({ FT: 'Sig', V: sig }));
    doc.catalog.set(PDFName.of('AcroForm'), context.obj({ Fields: [field] }));
    doc.catalog.set(PDFName.of('Perms'), context.obj({ DocMDP: sig }));
    const err = await signer.sign(input(Buffer.from(await doc.save()), 'Eve')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err).toMatchObject({ code: 'invalid_argument', field: 'file' });
    expect((err as Error).message).toMatch(/certified/);
  });
});
