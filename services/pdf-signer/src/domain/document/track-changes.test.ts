import { describe, expect, it } from 'vitest';
import type { PDFArray } from 'pdf-lib';
import { PDFDict, PDFDocument, PDFName, PDFNumber, PDFRef, PDFString, ParseSpeeds } from 'pdf-lib';
import { makePdf } from '@esign/testing';
import { isChanged, trackChanges } from './track-changes';

const load = async () =>
  PDFDocument.load(await makePdf({ pages: 2 }), {
    parseSpeed: ParseSpeeds.Fastest,
    updateMetadata: false,
  });

/** Numbers of the objects an update would write. */
const written = (doc: PDFDocument, log: ReturnType<typeof trackChanges>) =>
  doc.context
    .enumerateIndirectObjects()
    .filter(([ref, object]) => isChanged(log, ref, object))
    .map(([ref]) => ref.objectNumber)
    .sort((a, b) => a - b);

describe('track-changes (which objects an incremental update writes)', () => {
  it('writes nothing for a document loaded and left alone, whatever pdf-lib did while parsing', async () => {
    const doc = await load();
    const sut = trackChanges(doc.context);
    doc.getPages().forEach((page) => page.getSize());
    expect(written(doc, sut)).toEqual([]);
  });

  it('writes the indirect object around a changed dictionary or array, however deep it sits', async () => {
    const doc = await load();
    const [first, second] = doc.getPages();
    if (!first || !second) throw new Error('two pages expected');
    // A dictionary inside a dictionary inside the first page, not behind a reference.
    const inner = doc.context.obj({ Deep: { Deeper: [1, 2] } });
    first.node.set(PDFName.of('Nested'), inner);
    const sut = trackChanges(doc.context);
    const deeper = (inner.get(PDFName.of('Deep')) as PDFDict).get(PDFName.of('Deeper')) as PDFArray;
    deeper.push(PDFNumber.of(3));
    expect(written(doc, sut)).toEqual([first.ref.objectNumber]);
    second.node.set(PDFName.of('Rotate'), PDFNumber.of(90));
    expect(written(doc, sut)).toEqual(
      [first.ref.objectNumber, second.ref.objectNumber].sort((a, b) => a - b),
    );
  });

  it('does not count setting an entry to the value it has', async () => {
    const doc = await load();
    const [page] = doc.getPages();
    if (!page) throw new Error('a page expected');
    page.node.set(PDFName.of('Rotate'), PDFNumber.of(0));
    const parent = page.node.get(PDFName.of('Parent'));
    const sut = trackChanges(doc.context);
    page.node.set(PDFName.of('Rotate'), PDFNumber.of(0));
    if (parent instanceof PDFRef) page.node.set(PDFName.of('Parent'), parent);
    page.node.delete(PDFName.of('NotThere'));
    expect(written(doc, sut)).toEqual([]);
    page.node.set(PDFName.of('Rotate'), PDFNumber.of(180));
    expect(written(doc, sut)).toEqual([page.ref.objectNumber]);
  });

  it('writes new objects and original numbers given another object, not the untouched rest', async () => {
    const doc = await load();
    const sut = trackChanges(doc.context);
    const added = doc.context.register(doc.context.obj({ Added: true }));
    const catalogRef = doc.context.trailerInfo.Root as PDFRef;
    const infoRef = doc.context.trailerInfo.Info as PDFRef;
    // Made without `set` (as the parser makes dictionaries): only the assignment says it is new.
    const info = PDFDict.fromMapWithContext(
      new Map([[PDFName.of('Title'), PDFString.of('new')]]),
      doc.context,
    );
    doc.context.assign(infoRef, info);
    expect(written(doc, sut)).toEqual([infoRef.objectNumber, added.objectNumber].sort((a, b) => a - b));
    expect(written(doc, sut)).not.toContain(catalogRef.objectNumber);
  });

  it('records nothing for a document it was not asked to track, and still changes it', async () => {
    const tracked = await load();
    const sut = trackChanges(tracked.context);
    const other = await load();
    const [page] = other.getPages();
    page?.node.set(PDFName.of('Rotate'), PDFNumber.of(90));
    expect(page?.getRotation().angle).toBe(90);
    expect(sut.changed.size).toBe(0);
  });
});
