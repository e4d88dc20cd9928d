import { PDFArray, PDFDocument, PDFName, PDFNumber } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { isPdfLibraryFailure } from './classify-pdf-failure';

const thrownBy = (fn: () => unknown): unknown => {
  try {
    fn();
  } catch (err) {
    return err;
  }
  throw new Error('expected a throw');
};

describe('isPdfLibraryFailure', () => {
  it('blames the document for a TypeError thrown inside pdf-lib (a number where an array belongs)', async () => {
    const doc = await PDFDocument.create();
    const page = doc.addPage();
    page.node.set(PDFName.of('Contents'), PDFNumber.of(7));
    const err = thrownBy(() => page.node.addContentStream(doc.context.register(doc.context.stream('q Q'))));
    expect(err).toBeInstanceOf(TypeError);
    expect(isPdfLibraryFailure(err)).toBe(true);
  });

  it("blames the document for pdf-lib's own type check failing", async () => {
    const doc = await PDFDocument.create();
    doc.catalog.set(PDFName.of('AcroForm'), PDFNumber.of(1));
    expect(
      isPdfLibraryFailure(thrownBy(() => doc.catalog.lookupMaybe(PDFName.of('AcroForm'), PDFArray))),
    ).toBe(true);
  });

  it('blames the document for a stack overflow (a cyclic structure)', () => {
    const recurse = (n: number): number => recurse(n + 1) + 1;
    expect(isPdfLibraryFailure(thrownBy(() => recurse(0)))).toBe(true);
  });

  it('keeps an error thrown in our own code a fault of ours', () => {
    const missing = undefined as unknown as { name: string };
    expect(isPdfLibraryFailure(thrownBy(() => missing.name))).toBe(false);
    expect(isPdfLibraryFailure(new Error('CMS signature does not fit its placeholder'))).toBe(false);
    expect(isPdfLibraryFailure('a string')).toBe(false);
  });
});
