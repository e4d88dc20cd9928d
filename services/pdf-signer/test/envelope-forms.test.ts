import { createHash, randomUUID } from 'node:crypto';
import { PDFArray, PDFDict, PDFDocument, PDFName, PDFRawStream, PDFRef, PDFStream } from 'pdf-lib';
import type { PDFObject } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdfCompleteEnvelope, PdfPrepareEnvelope, PdfSignRevision, ServiceError } from '@esign/contracts';
import type { TEnvelopeField, TSignature } from '@esign/contracts';
import { newAuditId } from '@esign/ids';
import { inkAt, makePdf, makePng, pdfInfo, pdfSig, pdfText, qpdfCheck, renderPage } from '@esign/testing';
import { startTestSigner } from './start-test-signer';
import type { TestSigner } from './start-test-signer';

/**
 * Envelopes that Adobe Acrobat keeps valid: revision 0 (pdf.prepare-envelope) makes every field, the
 * certificate's pages and the seal's field; each signer's revision and the completion only fill fields
 * and sign. The structural test checks Acrobat's rule without Acrobat: after revision 0 no page, page
 * tree or content stream changes and no page is added.
 */
let sut: TestSigner;
let drawn: TSignature;
const accountId = randomUUID();
const auditId = newAuditId();
const envelopeId = `env_${randomUUID().replace(/-/g, '').slice(0, 24)}`;

beforeAll(async () => {
  sut = await startTestSigner({ PADES_LEVEL: 'B-T' });
  drawn = { mode: 'draw', imageBase64: (await makePng({ color: '#1e3a8a' })).toString('base64') };
});
afterAll(async () => {
  await sut?.stop();
});

const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

const field = (f: Partial<TEnvelopeField> & Pick<TEnvelopeField, 'type' | 'page'>): TEnvelopeField => {
  const width = f.width ?? 30;
  const height =
    f.type === 'signature' || f.type === 'initials' ? width / 3 : f.type === 'checkbox' ? width : 3;
  return { x: 10, y: 10, width, height: Math.round(height * 100) / 100, required: true, ...f };
};

const signerA = {
  name: 'Ann Lee',
  email: 'ann@example.com',
  ipAddress: '203.0.113.7',
  userAgent: 'AnnBrowser/1.0',
};
const signerB = {
  name: 'Bob Stone',
  email: 'bob@example.com',
  ipAddress: '198.51.100.9',
  userAgent: 'BobBrowser/2.0',
};

const signatureA = field({ type: 'signature', page: 0, x: 10, y: 60, width: 30 });
const secondSignatureA = field({ type: 'signature', page: 2, x: 10, y: 80, width: 20 });
const checkboxA = field({ type: 'checkbox', page: 2, x: 10, y: 10, width: 4 });
const fieldsA = [
  { field: signatureA },
  { field: field({ type: 'date', page: 0, x: 50, y: 62, width: 25 }), value: '2026-11-26' },
  { field: field({ type: 'name', page: 1, x: 10, y: 20, width: 30 }), value: 'Ann Lee' },
  { field: field({ type: 'text', page: 1, x: 10, y: 30, width: 40 }), value: 'Payment within 30 days' },
  { field: checkboxA, value: true },
  { field: secondSignatureA },
];
const signatureB = field({ type: 'signature', page: 2, x: 50, y: 70, width: 30 });
const initialsB = field({ type: 'initials', page: 1, x: 70, y: 80, width: 12 });
const fieldsB = [
  { field: signatureB },
  { field: initialsB },
  { field: field({ type: 'text', page: 2, x: 10, y: 40, width: 40 }), value: 'Одобрено: Боб' },
];

const failure = async (promise: Promise<unknown>): Promise<ServiceError> => {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a ServiceError');
};

/** pdfsig's signatures in file order (unsigned signature fields, listed as "not signed", left out). */
const signatures = async (pdf: Buffer) =>
  (await pdfSig(pdf)).stdout
    .split(/^Signature #\d+:$/m)
    .slice(1)
    .filter((block) => !block.includes('The signature form field is not signed.'))
    .map((block) => ({
      valid: block.includes('Signature Validation: Signature is Valid.'),
      wholeFile: block.includes('Total document signed'),
    }));

/** Where each revision of `file` ends (after its %%EOF line). */
const revisionEnds = (file: Buffer): number[] => {
  const text = file.toString('latin1');
  return [...text.matchAll(/startxref\s+\d+\s+%%EOF\r?\n?/g)].map((m) => (m.index ?? 0) + m[0].length);
};

/** Object numbers defined in bytes [from, to). */
const objectsIn = (file: Buffer, from: number, to: number): number[] =>
  [...file.toString('latin1', from, to).matchAll(/(?:^|[\r\n])(\d+) (\d+) obj\b/g)].map((m) => Number(m[1]));

/** Every reference reachable from `roots` (dictionaries, arrays and streams' dictionaries). */
const reachable = (doc: PDFDocument, roots: readonly PDFObject[]): Set<number> => {
  const seen = new Set<number>();
  const walk = (object: PDFObject | undefined) => {
    if (object instanceof PDFRef) {
      if (seen.has(object.objectNumber)) return;
      seen.add(object.objectNumber);
      walk(doc.context.lookup(object));
    } else if (object instanceof PDFDict) {
      for (const [, value] of object.entries()) walk(value);
    } else if (object instanceof PDFArray) {
      for (const value of object.asArray()) walk(value);
    } else if (object instanceof PDFStream) {
      walk(object.dict);
    }
  };
  roots.forEach(walk);
  return seen;
};

/** What may change after revision 0 (Acrobat: form fill-in, signing, annotations, DSS). */
const classify = (doc: PDFDocument, previous: PDFDocument, objectNumber: number): string => {
  const ref = PDFRef.of(objectNumber, 0);
  const object = doc.context.lookup(ref);
  const pages = doc.getPages();
  if (pages.some((p) => p.ref.objectNumber === objectNumber)) return 'page';
  const contents = new Set<number>();
  for (const page of pages) {
    const c = page.node.get(PDFName.of('Contents'));
    if (c instanceof PDFRef) contents.add(c.objectNumber);
    const array = c instanceof PDFArray ? c : c instanceof PDFRef ? doc.context.lookup(c) : undefined;
    if (array instanceof PDFArray)
      for (const item of array.asArray()) if (item instanceof PDFRef) contents.add(item.objectNumber);
  }
  if (contents.has(objectNumber)) return 'page content';
  const catalogRef = doc.context.trailerInfo.Root;
  if (catalogRef instanceof PDFRef && catalogRef.objectNumber === objectNumber) {
    const changed = new Set<string>();
    const before = previous.catalog;
    for (const [key, value] of doc.catalog.entries())
      if (before.get(key)?.toString() !== value.toString()) changed.add(key.decodeText());
    for (const [key] of before.entries()) if (!doc.catalog.has(key)) changed.add(key.decodeText());
    return [...changed].every((k) => k === 'DSS' || k === 'AcroForm') ? 'catalog (DSS, AcroForm)' : 'catalog';
  }
  const pagesRef = doc.catalog.get(PDFName.of('Pages'));
  if (pagesRef instanceof PDFRef && reachableTree(doc, pagesRef).has(objectNumber)) return 'page tree';
  const form = doc.catalog.get(PDFName.of('AcroForm'));
  if (form instanceof PDFRef && form.objectNumber === objectNumber) return 'AcroForm';
  if (object instanceof PDFDict) {
    const subtype = object.get(PDFName.of('Subtype'));
    const type = object.get(PDFName.of('Type'));
    if (subtype === PDFName.of('Widget') && object.has(PDFName.of('T'))) return 'field and widget';
    if (type === PDFName.of('Sig')) return 'signature';
  }
  // Fonts, images and appearance streams of widgets, the form's resources, signatures and the DSS.
  const widgets = pages.flatMap((p) => {
    const annots = p.node.lookup(PDFName.of('Annots'));
    return annots instanceof PDFArray ? annots.asArray() : [];
  });
  const appearances = widgets
    .map((w) => doc.context.lookup(w))
    .filter((w): w is PDFDict => w instanceof PDFDict)
    .flatMap((w) => [w.get(PDFName.of('AP')), w.get(PDFName.of('V'))])
    .filter((x): x is PDFObject => x !== undefined);
  const formDict = doc.catalog.lookup(PDFName.of('AcroForm'));
  const dr = formDict instanceof PDFDict ? formDict.get(PDFName.of('DR')) : undefined;
  const dss = doc.catalog.get(PDFName.of('DSS'));
  const allowed = reachable(doc, [...appearances, ...(dr ? [dr] : []), ...(dss ? [dss] : [])]);
  if (allowed.has(objectNumber)) return 'appearance, resource, signature or DSS';
  return `other (${object?.toString().slice(0, 80)})`;
};

/** The page tree's nodes (pages and intermediate nodes). */
const reachableTree = (doc: PDFDocument, root: PDFRef): Set<number> => {
  const nodes = new Set<number>();
  const visit = (ref: PDFRef) => {
    if (nodes.has(ref.objectNumber)) return;
    nodes.add(ref.objectNumber);
    const node = doc.context.lookup(ref);
    const kids = node instanceof PDFDict ? node.lookup(PDFName.of('Kids')) : undefined;
    if (kids instanceof PDFArray) for (const kid of kids.asArray()) if (kid instanceof PDFRef) visit(kid);
  };
  visit(root);
  return nodes;
};

/** What Acrobat allows after an approval signature, as `classify` names it. */
const FORM_ONLY = [
  'AcroForm',
  'catalog (DSS, AcroForm)',
  'appearance, resource, signature or DSS',
  'field and widget',
  'signature',
];

/**
 * Every update after revision 0 (the file's first %%EOF), classified; checks on the way that the page
 * count never changes and that every page's dictionary stays the one revision 0 wrote.
 */
const changesAfterRevision0 = async (file: Buffer): Promise<Set<string>> => {
  const ends = revisionEnds(file);
  const docs = await Promise.all(
    ends.map((end) => PDFDocument.load(file.subarray(0, end), { updateMetadata: false })),
  );
  const pageCount = docs[0]?.getPageCount();
  const seen = new Set<string>();
  for (let r = 1; r < ends.length; r++) {
    const doc = docs[r];
    const previous = docs[r - 1];
    if (!doc || !previous) throw new Error('missing revision');
    expect(doc.getPageCount()).toBe(pageCount);
    // Every page's dictionary (its /Contents, /Annots, resources) is the one revision 0 wrote.
    doc.getPages().forEach((page, i) => {
      expect(page.node.toString()).toBe(previous.getPages()[i]?.node.toString());
    });
    const changed = objectsIn(file, ends[r - 1] ?? 0, ends[r] ?? 0);
    expect(changed.length).toBeGreaterThan(0);
    for (const n of changed) seen.add(classify(doc, previous, n));
  }
  return seen;
};

describe('an envelope prepared as a form (pdf.prepare-envelope, then fill-in and signing only)', () => {
  let original: Buffer;
  let revision0: Buffer;
  let completed: Buffer;
  let prepared: Awaited<ReturnType<typeof sut.client.request<typeof PdfPrepareEnvelope>>>;
  let completion: Awaited<ReturnType<typeof sut.client.request<typeof PdfCompleteEnvelope>>>;
  const originalKey = `pending/${accountId}/${envelopeId}.pdf`;
  const key0 = `envelopes/${accountId}/${envelopeId}/0.pdf`;
  const key1 = `envelopes/${accountId}/${envelopeId}/1.pdf`;
  const key2 = `envelopes/${accountId}/${envelopeId}/2.pdf`;
  const at = (minutes: number) => new Date(Date.UTC(2026, 10, 26, 9, minutes)).toISOString();

  const signRevision = (
    sourceKey: string,
    targetKey: string,
    signer: typeof signerA,
    fields: { field: TEnvelopeField; value?: string | boolean; fieldName?: string }[],
    extra: { initials?: TSignature } = {},
  ) =>
    sut.client.request(PdfSignRevision, {
      accountId,
      auditId,
      sourceKey,
      targetKey,
      fileName: 'contract.pdf',
      signer,
      signature: drawn,
      fields,
      reason: `Signed by ${signer.name}`,
      ...extra,
    });

  beforeAll(async () => {
    original = await makePdf({ pages: 3, text: 'Service agreement' });
    await sut.blob.put(originalKey, original);
    prepared = await sut.client.request(PdfPrepareEnvelope, {
      accountId,
      auditId,
      envelopeId,
      sourceKey: originalKey,
      targetKey: key0,
      fileName: 'contract.pdf',
      subject: 'Please sign the service agreement',
      senderEmail: 'sender@example.com',
      createdAt: at(0),
      originalHash: sha256(original),
      recipients: [
        { ...signerA, role: 'signer', order: 1, fields: fieldsA.map((f) => f.field) },
        { name: 'Ada Approver', email: 'ada@example.com', role: 'approver', order: 1, fields: [] },
        { ...signerB, role: 'signer', order: 2, fields: fieldsB.map((f) => f.field) },
      ],
    });
    revision0 = await sut.blob.getBuffer(key0);
    // Signer A's fields are found by their boxes; signer B's by name (recipient 2).
    await signRevision(key0, key1, signerA, fieldsA);
    await signRevision(
      key1,
      key2,
      signerB,
      fieldsB.map((f, j) => ({ ...f, fieldName: `r2f${j}` })),
      { initials: { mode: 'type', typedName: 'BS', color: '#0f172a' } },
    );
    completion = await sut.client.request(PdfCompleteEnvelope, {
      accountId,
      auditId,
      envelopeId,
      sourceKey: key2,
      fileName: 'contract.pdf',
      subject: 'Please sign the service agreement',
      senderEmail: 'sender@example.com',
      createdAt: at(0),
      originalHash: sha256(original),
      recipients: [
        {
          ...signerA,
          role: 'signer',
          order: 1,
          status: 'signed',
          events: [
            { event: 'notified', at: at(1), ipAddress: null, userAgent: null },
            { event: 'viewed', at: at(5), ipAddress: signerA.ipAddress, userAgent: signerA.userAgent },
            { event: 'signed', at: at(7), ipAddress: signerA.ipAddress, userAgent: signerA.userAgent },
          ],
        },
        {
          name: 'Ada Approver',
          email: 'ada@example.com',
          role: 'approver',
          order: 1,
          status: 'approved',
          events: [{ event: 'approved', at: at(9), ipAddress: '192.0.2.1', userAgent: 'AdaBrowser/3' }],
        },
        {
          ...signerB,
          role: 'signer',
          order: 2,
          status: 'signed',
          events: [
            { event: 'signed', at: at(20), ipAddress: signerB.ipAddress, userAgent: signerB.userAgent },
          ],
        },
      ],
    });
    completed = await sut.blob.getBuffer(completion.signedKey);
  }, 120_000);

  it('writes revision 0: the document, the certificate page and every field, with the audit metadata', async () => {
    expect(prepared).toMatchObject({
      objectKey: key0,
      pageCount: 4,
      certificatePages: 1,
      size: revision0.length,
    });
    expect(prepared.fileHash).toBe(sha256(revision0));
    expect(prepared.events[0]).toMatchObject({ event: 'envelope.prepared', details: { fields: 9 } });
    expect((await qpdfCheck(revision0)).ok).toBe(true);
    const info = await pdfInfo(revision0);
    expect(info.Pages).toBe('4');
    const doc = await PDFDocument.load(revision0);
    const names = doc
      .getForm()
      .getFields()
      .map((f) => f.getName())
      .sort();
    expect(names).toEqual(
      ['r0f0', 'r0f1', 'r0f2', 'r0f3', 'r0f4', 'r0f5', 'r2f0', 'r2f1', 'r2f2', 'certificate1', 'seal'].sort(),
    );
    const header = await pdfText(revision0, 3);
    for (const needle of [
      'Certificate of completion',
      envelopeId,
      auditId,
      sha256(original),
      'Recipients and events',
    ])
      expect(header).toContain(needle);
    expect(revision0.toString('latin1')).toContain(`/AuditId (${auditId})`);
    expect(await signatures(revision0)).toEqual([]);
  });

  it('changes after revision 0 only form fields, widgets, appearances, signatures and the DSS: never a page', async () => {
    const ends = revisionEnds(completed);
    // Revision 0, the two signers, the completion.
    expect(ends).toHaveLength(4);
    expect(completed.subarray(0, ends[0]).equals(revision0)).toBe(true);
    expect((await PDFDocument.load(revision0)).getPageCount()).toBe(4);
    const seen = await changesAfterRevision0(completed);
    expect([...seen].filter((category) => !FORM_ONLY.includes(category))).toEqual([]);
    expect(seen).toContain('field and widget');
    expect(seen).toContain('signature');
  });

  it('would catch a revision that draws on a page (the way unprepared documents are still signed)', async () => {
    const drawnKey = `envelopes/${accountId}/${envelopeId}/drawn.pdf`;
    await signRevision(originalKey, drawnKey, signerA, fieldsA);
    const file = await sut.blob.getBuffer(drawnKey);
    const ends = revisionEnds(file);
    expect(ends).toHaveLength(2);
    const [before, after] = await Promise.all(
      ends.map((end) => PDFDocument.load(file.subarray(0, end), { updateMetadata: false })),
    );
    if (!before || !after) throw new Error('missing revision');
    const seen = new Set(objectsIn(file, ends[0] ?? 0, ends[1] ?? 0).map((n) => classify(after, before, n)));
    expect(seen).toContain('page');
    expect(seen).toContain('page content');
  });

  it('carries one valid signature per signer and the seal over the whole file', async () => {
    expect(await signatures(completed)).toEqual([
      { valid: true, wholeFile: false },
      { valid: true, wholeFile: false },
      { valid: true, wholeFile: true },
    ]);
    expect((await qpdfCheck(completed)).ok).toBe(true);
    expect(completion.pageCount).toBe(4);
    expect(completion.events.map((e) => e.event)).toEqual(['certificate.filled', 'document.sealed']);
    const report = await sut.verify(completed);
    expect(report.problems).toEqual([]);
    expect(report.signatures.map((s) => s.cryptographicallyValid)).toEqual([true, true, true]);
  });

  it('shows every filled value and the certificate body (pdftotext)', async () => {
    expect(await pdfText(completed, 0)).toContain('2026-11-26');
    const page2 = await pdfText(completed, 1);
    expect(page2).toContain('Ann Lee');
    expect(page2).toContain('Payment within 30 days');
    expect(page2).toContain('BS');
    expect(await pdfText(completed, 2)).toContain('Одобрено: Боб');
    const certificate = (await pdfText(completed, 3)).replace(/\s+/g, ' ');
    for (const needle of [
      envelopeId,
      'Ann Lee <ann@example.com>',
      'Ada Approver <ada@example.com>',
      'Bob Stone <bob@example.com>',
      'Signer, group 1, status: signed',
      'Approver, group 1, status: approved',
      '2026-11-26 09:07:00 UTC signed',
      'IP address: 203.0.113.7',
      'User agent: BobBrowser/2.0',
      'Completed (UTC)',
    ])
      expect(certificate).toContain(needle);
  });

  it('shows ink in each signature, initials and checkbox box (pdftoppm)', async () => {
    const box = (f: TEnvelopeField) => ({ x: f.x, y: f.y, width: f.width, height: f.height ?? 0 });
    const page1 = await renderPage(completed, 0, 60);
    const page2 = await renderPage(completed, 1, 60);
    const page3 = await renderPage(completed, 2, 60);
    expect(inkAt(page1, box(signatureA))).toBeGreaterThan(0.02);
    expect(inkAt(page3, box(secondSignatureA))).toBeGreaterThan(0.02);
    expect(inkAt(page3, box(signatureB))).toBeGreaterThan(0.02);
    expect(inkAt(page2, box(initialsB))).toBeGreaterThan(0.01);
    expect(inkAt(page3, box(checkboxA))).toBeGreaterThan(0.05);
    expect(inkAt(page1, { x: 10, y: 70, width: 30, height: 10 })).toBe(0);
    // Before signing, the boxes are empty.
    expect(inkAt(await renderPage(revision0, 0, 60), box(signatureA))).toBe(0);
  });

  it('refuses a field the prepared form lacks, and a signature field signed already', async () => {
    const moved = await failure(
      signRevision(key0, `envelopes/${accountId}/${envelopeId}/x.pdf`, signerA, [
        { field: { ...signatureA, x: 12 } },
      ]),
    );
    expect(moved).toMatchObject({ code: 'invalid_argument', field: 'fields.0' });
    const again = await failure(
      signRevision(key1, `envelopes/${accountId}/${envelopeId}/y.pdf`, signerA, [
        { field: signatureA, fieldName: 'r0f0' },
      ]),
    );
    expect(again).toMatchObject({ code: 'invalid_argument', field: 'fields' });
  });
});

describe('pdf.prepare-envelope on a rotated page', () => {
  it('places the widget where the box is seen and shows the signature upright there', async () => {
    const original = await makePdf({ pages: 1, rotate: 90 });
    const source = `pending/${accountId}/rotated.pdf`;
    const key0 = `envelopes/${accountId}/rotated/0.pdf`;
    const key1 = `envelopes/${accountId}/rotated/1.pdf`;
    await sut.blob.put(source, original);
    const signature = field({ type: 'signature', page: 0, x: 55, y: 50, width: 30 });
    const date = field({ type: 'date', page: 0, x: 10, y: 10, width: 25 });
    await sut.client.request(PdfPrepareEnvelope, {
      accountId,
      auditId,
      envelopeId,
      sourceKey: source,
      targetKey: key0,
      fileName: 'rotated.pdf',
      subject: 'Rotated',
      senderEmail: 'sender@example.com',
      createdAt: new Date().toISOString(),
      originalHash: sha256(original),
      recipients: [{ ...signerA, role: 'signer', order: 1, fields: [signature, date] }],
    });
    await sut.client.request(PdfSignRevision, {
      accountId,
      auditId,
      sourceKey: key0,
      targetKey: key1,
      fileName: 'rotated.pdf',
      signer: signerA,
      signature: drawn,
      fields: [{ field: signature }, { field: date, value: '2026-11-26' }],
      reason: 'Signed',
    });
    const signed = await sut.blob.getBuffer(key1);
    const page = await renderPage(signed, 0, 60);
    const box = { x: signature.x, y: signature.y, width: signature.width, height: signature.height ?? 0 };
    expect(inkAt(page, box)).toBeGreaterThan(0.02);
    expect(inkAt(page, { x: 10, y: 50, width: 30, height: 10 })).toBe(0);
    // pdftotext reads the date horizontally: it is upright as the page is seen.
    expect(await pdfText(signed, 0)).toContain('2026-11-26');
    expect(await signatures(signed)).toEqual([{ valid: true, wholeFile: true }]);
  });
});

describe('two recipients with the same boxes', () => {
  it("fills the signing recipient's own fields, found by their boxes", async () => {
    const original = await makePdf({ pages: 1 });
    const source = `pending/${accountId}/same.pdf`;
    const keys = [0, 1, 2].map((n) => `envelopes/${accountId}/same/${n}.pdf`);
    await sut.blob.put(source, original);
    const fields = [
      field({ type: 'signature', page: 0, x: 10, y: 60, width: 30 }),
      field({ type: 'initials', page: 0, x: 60, y: 60, width: 12 }),
    ];
    await sut.client.request(PdfPrepareEnvelope, {
      accountId,
      auditId,
      envelopeId,
      sourceKey: source,
      targetKey: keys[0] ?? '',
      fileName: 'same.pdf',
      subject: 'Same boxes',
      senderEmail: 'sender@example.com',
      createdAt: new Date().toISOString(),
      originalHash: sha256(original),
      recipients: [
        { ...signerA, role: 'signer', order: 1, fields },
        { ...signerB, role: 'signer', order: 2, fields },
      ],
    });
    for (const [i, signer] of [signerA, signerB].entries()) {
      await sut.client.request(PdfSignRevision, {
        accountId,
        auditId,
        sourceKey: keys[i] ?? '',
        targetKey: keys[i + 1] ?? '',
        fileName: 'same.pdf',
        signer,
        signature: drawn,
        initials: { mode: 'type', typedName: signer.name.slice(0, 1), color: '#0f172a' },
        fields: fields.map((f) => ({ field: f })),
        reason: 'Signed',
      });
    }
    const signed = await sut.blob.getBuffer(keys[2] ?? '');
    const names = [...(await pdfSig(signed)).stdout.matchAll(/Signature Field Name: (\S+)/g)].map(
      (m) => m[1],
    );
    expect(names).toEqual(['r0f0', 'r1f0', 'seal']);
    expect(await signatures(signed)).toEqual([
      { valid: true, wholeFile: false },
      { valid: true, wholeFile: true },
    ]);
    // Each initials field shows its own signer's typed initials.
    const form = (await PDFDocument.load(signed)).getForm();
    const appearanceText = (name: string) => {
      const ap = form.getField(name).acroField.dict.lookup(PDFName.of('AP'));
      const normal = ap instanceof PDFDict ? ap.lookup(PDFName.of('N')) : undefined;
      return normal instanceof PDFRawStream ? Buffer.from(normal.contents).toString('latin1') : '';
    };
    expect(appearanceText('r0f1')).toContain('Tj');
    expect(appearanceText('r1f1')).toContain('Tj');
  });
});

describe('an envelope prepared as a form at PAdES B-LT', () => {
  it('adds only the DSS (catalog /DSS and its streams) besides fill-in and signatures', async () => {
    const longTerm = await startTestSigner({ PADES_LEVEL: 'B-LT' });
    try {
      const original = await makePdf({ pages: 1 });
      const source = `pending/${accountId}/lt.pdf`;
      const key0 = `envelopes/${accountId}/lt/0.pdf`;
      await longTerm.blob.put(source, original);
      const signature = field({ type: 'signature', page: 0, x: 10, y: 60, width: 30 });
      const base = {
        accountId,
        auditId,
        envelopeId,
        fileName: 'lt.pdf',
        subject: 'Long term',
        senderEmail: 'sender@example.com',
        createdAt: new Date().toISOString(),
        originalHash: sha256(original),
      };
      await longTerm.client.request(PdfPrepareEnvelope, {
        ...base,
        sourceKey: source,
        targetKey: key0,
        recipients: [{ ...signerA, role: 'signer', order: 1, fields: [signature] }],
      });
      const revision = await longTerm.client.request(PdfSignRevision, {
        accountId,
        auditId,
        sourceKey: key0,
        targetKey: `envelopes/${accountId}/lt/1.pdf`,
        fileName: 'lt.pdf',
        signer: signerA,
        signature: drawn,
        fields: [{ field: signature }],
        reason: 'Signed',
      });
      const done = await longTerm.client.request(PdfCompleteEnvelope, {
        ...base,
        sourceKey: revision.objectKey,
        recipients: [{ ...signerA, role: 'signer', order: 1, status: 'signed', events: [] }],
      });
      const file = await longTerm.blob.getBuffer(done.signedKey);
      // Revision 0, then a signature and its DSS twice.
      expect(revisionEnds(file)).toHaveLength(5);
      const seen = await changesAfterRevision0(file);
      expect([...seen].filter((category) => !FORM_ONLY.includes(category))).toEqual([]);
      expect(seen).toContain('catalog (DSS, AcroForm)');
      expect(await signatures(file)).toEqual([
        { valid: true, wholeFile: false },
        { valid: true, wholeFile: false },
      ]);
      expect((await qpdfCheck(file)).ok).toBe(true);
    } finally {
      await longTerm.stop();
    }
  }, 120_000);
});

describe('pdf.prepare-envelope on a document that is signed already', () => {
  it('appends revision 0, so the earlier signature still verifies', async () => {
    const original = await makePdf({ pages: 1 });
    const source = `pending/${accountId}/presigned-original.pdf`;
    const signedKey = `pending/${accountId}/presigned.pdf`;
    const key0 = `envelopes/${accountId}/presigned/0.pdf`;
    const key1 = `envelopes/${accountId}/presigned/1.pdf`;
    await sut.blob.put(source, original);
    // A document that carries a signature of its own (signed the unprepared way).
    await sut.client.request(PdfSignRevision, {
      accountId,
      auditId,
      sourceKey: source,
      targetKey: signedKey,
      fileName: 'presigned.pdf',
      signer: signerB,
      signature: drawn,
      fields: [{ field: field({ type: 'signature', page: 0, x: 10, y: 10, width: 20 }) }],
      reason: 'Signed before',
    });
    const signedBefore = await sut.blob.getBuffer(signedKey);
    const signature = field({ type: 'signature', page: 0, x: 50, y: 60, width: 30 });
    const prepared = await sut.client.request(PdfPrepareEnvelope, {
      accountId,
      auditId,
      envelopeId,
      sourceKey: signedKey,
      targetKey: key0,
      fileName: 'presigned.pdf',
      subject: 'Signed already',
      senderEmail: 'sender@example.com',
      createdAt: new Date().toISOString(),
      originalHash: sha256(signedBefore),
      recipients: [{ ...signerA, role: 'signer', order: 1, fields: [signature] }],
    });
    expect(prepared.events[0]?.details).toMatchObject({ appended: true });
    const revision0 = await sut.blob.getBuffer(key0);
    expect(revision0.subarray(0, signedBefore.length).equals(signedBefore)).toBe(true);
    await sut.client.request(PdfSignRevision, {
      accountId,
      auditId,
      sourceKey: key0,
      targetKey: key1,
      fileName: 'presigned.pdf',
      signer: signerA,
      signature: drawn,
      fields: [{ field: signature }],
      reason: 'Signed',
    });
    const file = await sut.blob.getBuffer(key1);
    expect(await signatures(file)).toEqual([
      { valid: true, wholeFile: false },
      { valid: true, wholeFile: true },
    ]);
    expect((await qpdfCheck(file)).ok).toBe(true);
  });
});
