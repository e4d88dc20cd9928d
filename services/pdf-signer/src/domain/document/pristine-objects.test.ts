import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { PDFArray, PDFDict } from 'pdf-lib';
import { PDFName, PDFNumber, PDFRef } from 'pdf-lib';
import { loadPdf } from './load-pdf';
import { pristineBytesOf } from './pristine-objects';
import { serializePdf } from './serialize-pdf';

/** A classic file written by hand, each object spaced as pdf-lib would never write it. */
const OBJECTS = [
  '<</Type/Catalog/Pages 2 0 R>>',
  '<</Type/Pages/Kids[3 0 R]/Count 1/MediaBox[0 0 612 792]>>',
  '<</Type/Page/Parent 2 0 R/Resources<</Font<</F1 4 0 R>>>>/Contents 5 0 R>>',
  '<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>',
  '<</Length 27>>\nstream\nBT /F1 12 Tf (Hi) Tj ET\nq Q\nendstream',
  '[ 1   2   3 ]',
] as const;

const handWritten = (): Buffer => {
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  OBJECTS.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${OBJECTS.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<</Size ${OBJECTS.length + 1}/Root 1 0 R>>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
};

const load = async () => (await loadPdf(handWritten())).doc;
const written = (doc: Awaited<ReturnType<typeof load>>) =>
  serializePdf(doc.context, undefined).file.toString('latin1');
const objectOf = (doc: Awaited<ReturnType<typeof load>>, number: number) =>
  doc.context.lookup(PDFRef.of(number, 0));

describe('pristine objects (written as they were read while nothing changes them)', () => {
  it('writes every dictionary and array that nothing changed as its bytes in the file', async () => {
    const sut = await load();
    const text = written(sut);
    for (const [i, object] of OBJECTS.entries()) {
      if (object.includes('stream')) continue;
      expect(text).toContain(`${i + 1} 0 obj\n${object}\nendobj`);
    }
  });

  it('writes a stream anew (its data copied, its dictionary written by pdf-lib)', async () => {
    const text = written(await load());
    expect(text).toContain('5 0 obj\n<<\n/Length 27\n>>\nstream\nBT /F1 12 Tf (Hi) Tj ET\nq Q\nendstream');
  });

  it('writes an object anew once an entry is set or deleted, or an array changed', async () => {
    const sut = await load();
    (objectOf(sut, 4) as PDFDict).set(PDFName.of('Name'), PDFName.of('F1'));
    (objectOf(sut, 1) as PDFDict).delete(PDFName.of('Pages'));
    (objectOf(sut, 6) as PDFArray).push(PDFNumber.of(4));
    const text = written(sut);
    expect(text).toContain('4 0 obj\n<<\n/Type /Font\n/Subtype /Type1\n/BaseFont /Helvetica\n/Name /F1\n>>');
    expect(text).toContain('1 0 obj\n<<\n/Type /Catalog\n>>');
    expect(text).toContain('6 0 obj\n[ 1 2 3 4 ]');
    // The others are as they were.
    expect(text).toContain(`2 0 obj\n${OBJECTS[1]}\nendobj`);
    expect(text).toContain(`3 0 obj\n${OBJECTS[2]}\nendobj`);
  });

  it('writes an object anew when a dictionary or array written inside it changes', async () => {
    const sut = await load();
    const page = objectOf(sut, 3) as PDFDict;
    const fonts = (page.get(PDFName.of('Resources')) as PDFDict).get(PDFName.of('Font')) as PDFDict;
    fonts.set(PDFName.of('F2'), PDFRef.of(4, 0));
    const pages = objectOf(sut, 2) as PDFDict;
    (pages.get(PDFName.of('MediaBox')) as PDFArray).set(2, PDFNumber.of(595));
    expect(pristineBytesOf(sut.context, page)).toBeUndefined();
    expect(pristineBytesOf(sut.context, pages)).toBeUndefined();
    const text = written(sut);
    expect(text).toContain('/F2 4 0 R');
    expect(text).toContain('/MediaBox [ 0 0 595 792 ]');
  });

  it("never writes a dictionary taken out of an object as that object's bytes", async () => {
    const sut = await load();
    const page = objectOf(sut, 3) as PDFDict;
    const resources = page.get(PDFName.of('Resources')) as PDFDict;
    const ref = sut.context.register(resources);
    expect(pristineBytesOf(sut.context, resources)).toBeUndefined();
    expect(written(sut)).toContain(`${ref.objectNumber} 0 obj\n<<\n/Font <<\n/F1 4 0 R\n>>\n>>`);
  });

  it('signs pages pdf-lib changes while pristine ones stay as read: the file passes qpdf --check', async () => {
    const sut = await load();
    sut.addPage([612, 792]);
    const file = serializePdf(sut.context, undefined).file;
    const dir = mkdtempSync(join(tmpdir(), 'pristine-'));
    try {
      writeFileSync(join(dir, 'out.pdf'), file);
      const { stdout } = await promisify(execFile)('qpdf', ['--check', join(dir, 'out.pdf')]);
      expect(stdout).toContain('No syntax or stream encoding errors found');
      expect(stdout).not.toMatch(/WARNING/);
      const { stdout: info } = await promisify(execFile)('pdfinfo', [join(dir, 'out.pdf')]);
      expect(info).toMatch(/Pages:\s+2/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
