import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PdfCompleteEnvelope, PdfMarkIncomplete, PdfSignRevision, ServiceError } from '@esign/contracts';
import type { TEnvelopeField, TSignature } from '@esign/contracts';
import { newAuditId } from '@esign/ids';
import { inkAt, makePdf, makePng, pdfInfo, pdfSig, pdfText, qpdfCheck, renderPage } from '@esign/testing';
import { startTestSigner } from './start-test-signer';
import type { TestSigner } from './start-test-signer';

let sut: TestSigner;
let drawn: TSignature;
const accountId = randomUUID();
const auditId = newAuditId();
const envelopeId = `env_${randomUUID().replace(/-/g, '').slice(0, 24)}`;

/** A4 portrait, as makePdf makes it. */
const A4 = { width: 595.28, height: 841.89 };

beforeAll(async () => {
  // B-T: each signature is the file's last update, so the seal covers the whole file (B-LT below).
  sut = await startTestSigner({ PADES_LEVEL: 'B-T' });
  drawn = { mode: 'draw', imageBase64: (await makePng({ color: '#1e3a8a' })).toString('base64') };
});
afterAll(async () => {
  await sut?.stop();
});

const sha256 = (bytes: Buffer) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

const field = (f: Partial<TEnvelopeField> & Pick<TEnvelopeField, 'type' | 'page'>): TEnvelopeField => ({
  x: 10,
  y: 10,
  width: 30,
  required: true,
  ...f,
});

/** A field's box in percent of an A4 portrait page, with the contract's default heights. */
const percentBox = (f: TEnvelopeField) => {
  const widthPt = (A4.width * f.width) / 100;
  const heightPt =
    f.height !== undefined
      ? (A4.height * f.height) / 100
      : f.type === 'signature' || f.type === 'initials'
        ? widthPt / 3
        : f.type === 'checkbox'
          ? widthPt
          : A4.height * 0.03;
  return { x: f.x, y: f.y, width: f.width, height: (heightPt / A4.height) * 100 };
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
const checkboxA = field({ type: 'checkbox', page: 2, x: 10, y: 10, width: 4 });
const fieldsA = [
  { field: signatureA },
  { field: field({ type: 'date', page: 0, x: 50, y: 62, width: 25 }), value: '2026-11-26' },
  { field: field({ type: 'name', page: 1, x: 10, y: 20, width: 30 }), value: 'Ann Lee' },
  {
    field: field({ type: 'text', page: 1, x: 10, y: 30, width: 40, value: 'Net 30' }),
    value: 'Payment within 30 days',
  },
  { field: checkboxA, value: true },
];
const signatureB = field({ type: 'signature', page: 2, x: 50, y: 70, width: 30 });
const initialsB = field({ type: 'initials', page: 1, x: 70, y: 80, width: 12 });
const fieldsB = [
  { field: signatureB },
  { field: initialsB },
  // Text no standard font can show: drawn in the embedded Noto subset.
  { field: field({ type: 'text', page: 2, x: 10, y: 40, width: 40 }), value: 'Одобрено: Боб' },
];

const signRevision = (
  sourceKey: string,
  targetKey: string,
  signer: typeof signerA,
  fields: { field: TEnvelopeField; value?: string | boolean }[],
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

const failure = async (promise: Promise<unknown>): Promise<ServiceError> => {
  try {
    await promise;
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a ServiceError');
};

/** pdfsig's report, one entry per signature in file order. */
const signatures = async (pdf: Buffer) =>
  (await pdfSig(pdf)).stdout
    .split(/^Signature #\d+:$/m)
    .slice(1)
    .map((block) => ({
      valid: block.includes('Signature Validation: Signature is Valid.'),
      wholeFile: block.includes('Total document signed'),
      subFilter: /Signature Type: (.*)/.exec(block)?.[1]?.trim(),
    }));

describe('an envelope: two signers, then completion (pdf.sign-revision, pdf.complete-envelope)', () => {
  let original: Buffer;
  let revision1: Buffer;
  let revision2: Buffer;
  let completed: Buffer;
  const originalKey = `pending/${accountId}/${envelopeId}.pdf`;
  const key1 = `envelopes/${accountId}/${envelopeId}/1.pdf`;
  const key2 = `envelopes/${accountId}/${envelopeId}/2.pdf`;
  let reply1: Awaited<ReturnType<typeof signRevision>>;
  let reply2: Awaited<ReturnType<typeof signRevision>>;
  let completion: Awaited<ReturnType<typeof sut.client.request<typeof PdfCompleteEnvelope>>>;

  beforeAll(async () => {
    original = await makePdf({ pages: 3, text: 'Service agreement' });
    await sut.blob.put(originalKey, original);
    reply1 = await signRevision(originalKey, key1, signerA, fieldsA);
    revision1 = await sut.blob.getBuffer(key1);
    reply2 = await signRevision(key1, key2, signerB, fieldsB, {
      initials: { mode: 'type', typedName: 'BS', color: '#0f172a' },
    });
    revision2 = await sut.blob.getBuffer(key2);
    const at = (minutes: number) => new Date(Date.UTC(2026, 10, 26, 9, minutes)).toISOString();
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
          ...signerB,
          role: 'signer',
          order: 2,
          status: 'signed',
          events: [
            // A recipient who took another's place: the note names them (any script).
            {
              event: 'replaced',
              at: at(10),
              ipAddress: null,
              userAgent: null,
              note: 'In place of Dora Иванова <dora@example.com>',
            },
            { event: 'signed', at: at(20), ipAddress: signerB.ipAddress, userAgent: signerB.userAgent },
          ],
        },
        { name: 'Carl Copy', email: 'carl@example.com', role: 'cc', order: 3, status: 'waiting', events: [] },
      ],
    });
    completed = await sut.blob.getBuffer(completion.signedKey);
  }, 120_000);

  it('appends every revision, the first one to the original, leaving earlier bytes as they were', () => {
    expect(revision1.length).toBeGreaterThan(original.length);
    expect(revision1.subarray(0, original.length).equals(original)).toBe(true);
    expect(revision2.subarray(0, revision1.length).equals(revision1)).toBe(true);
    expect(completed.subarray(0, revision1.length).equals(revision1)).toBe(true);
    expect(completed.subarray(0, revision2.length).equals(revision2)).toBe(true);
  });

  it('answers what it wrote, and leaves the source in place', async () => {
    expect(reply1).toMatchObject({ objectKey: key1, size: revision1.length, pageCount: 3 });
    expect(reply1.fileHash).toBe(sha256(revision1));
    expect(reply2.fileHash).toBe(sha256(revision2));
    expect(reply1.events.map((e) => e.event)).toEqual(['fields.filled', 'revision.signed']);
    expect(reply1.events[1]?.details).toMatchObject({
      sourceHash: sha256(original),
      signatureIndex: 1,
      priorSignatures: 0,
      appended: true,
      signatureFormat: 'ETSI.CAdES.detached',
    });
    expect(reply2.events[1]?.details).toMatchObject({ signatureIndex: 2, priorSignatures: 1 });
    expect((await sut.blob.getBuffer(originalKey)).equals(original)).toBe(true);
    expect(await sut.blob.stat(key1)).toBeDefined();
    expect(completion).toMatchObject({
      signedKey: `signed/${accountId}/${auditId}.pdf`,
      signedFileName: 'contract-signed.pdf',
      size: completed.length,
      pageCount: 4,
      fileHash: sha256(completed),
    });
    expect(completion.events.map((e) => e.event)).toEqual(['certificate.added', 'document.sealed']);
  });

  it('carries three PAdES signatures that all verify, the seal over the whole file', async () => {
    expect(await signatures(completed)).toEqual([
      { valid: true, wholeFile: false, subFilter: 'ETSI.CAdES.detached' },
      { valid: true, wholeFile: false, subFilter: 'ETSI.CAdES.detached' },
      { valid: true, wholeFile: true, subFilter: 'ETSI.CAdES.detached' },
    ]);
    // Each signature dictionary names its signer and the reason given (pdfsig 22 prints neither).
    const raw = completed.toString('latin1');
    expect(raw).toContain('/Name (Ann Lee)\n/Reason (Signed by Ann Lee)\n/ContactInfo (ann@example.com)');
    expect(raw).toContain('/Name (Bob Stone)\n/Reason (Signed by Bob Stone)');
    expect(raw).toContain(`/Reason (Envelope ${envelopeId} completed \\(audit ID ${auditId}\\))`);
    expect(await signatures(revision1)).toEqual([
      { valid: true, wholeFile: true, subFilter: 'ETSI.CAdES.detached' },
    ]);
    expect((await qpdfCheck(revision1)).ok).toBe(true);
    expect((await qpdfCheck(revision2)).ok).toBe(true);
    expect((await qpdfCheck(completed)).ok).toBe(true);
  });

  it("passes the service's own verifier: three valid signatures of this service, the seal last", async () => {
    const report = await sut.verify(completed);
    expect(report.problems).toEqual([]);
    expect(
      report.signatures.map((sig) => ({
        valid: sig.cryptographicallyValid,
        ours: sig.sealedByThisService,
        whole: sig.coversWholeFile,
        subFilter: sig.subFilter,
      })),
    ).toEqual([
      { valid: true, ours: true, whole: false, subFilter: 'ETSI.CAdES.detached' },
      { valid: true, ours: true, whole: false, subFilter: 'ETSI.CAdES.detached' },
      { valid: true, ours: true, whole: true, subFilter: 'ETSI.CAdES.detached' },
    ]);
    // The first signature signed exactly the first revision.
    expect(report.signatures[0]?.revisionHash).toBe(reply1.fileHash);
    expect(report.signatures[1]?.revisionHash).toBe(reply2.fileHash);
  });

  it('shows every filled value on its page', async () => {
    expect(await pdfText(completed, 0)).toContain('2026-11-26');
    const page2 = await pdfText(completed, 1);
    expect(page2).toContain('Ann Lee');
    expect(page2).toContain('Payment within 30 days');
    // The initials are a typed name in the handwriting font.
    expect(page2).toContain('BS');
    expect(await pdfText(completed, 2)).toContain('Одобрено: Боб');
  });

  it('draws ink inside each signature, initials and checkbox box, and none where no field is', async () => {
    const page1 = await renderPage(completed, 0, 60);
    const page2 = await renderPage(completed, 1, 60);
    const page3 = await renderPage(completed, 2, 60);
    const sigA = percentBox(signatureA);
    const checkbox = percentBox(checkboxA);
    const sigB = percentBox(signatureB);
    const initials = percentBox(initialsB);
    expect(inkAt(page1, sigA)).toBeGreaterThan(0.02);
    expect(inkAt(page3, sigB)).toBeGreaterThan(0.02);
    expect(inkAt(page2, initials)).toBeGreaterThan(0.01);
    expect(inkAt(page3, checkbox)).toBeGreaterThan(0.05);
    // Ink stays in the boxes: just below the signature box is blank paper.
    expect(inkAt(page1, { x: 10, y: 70, width: 30, height: 10 })).toBe(0);
  });

  it('ends with a certificate of completion naming every recipient and their events', async () => {
    expect((await pdfInfo(completed)).Pages).toBe('4');
    const text = await pdfText(completed, 3);
    for (const needle of [
      'Certificate of completion',
      envelopeId,
      auditId,
      'contract.pdf',
      'Please sign the service agreement',
      'sender@example.com',
      sha256(original),
      'Ann Lee <ann@example.com>',
      'Bob Stone <bob@example.com>',
      'Carl Copy <carl@example.com>',
      'In place of Dora Иванова <dora@example.com>',
      'Signer, group 1, status: signed',
      'Receives a copy, group 3, status: waiting',
      '2026-11-26 09:07:00 UTC',
      '2026-11-26 09:20:00 UTC',
      'signed',
      'viewed',
      signerA.ipAddress,
      signerB.userAgent,
    ]) {
      expect(text).toContain(needle);
    }
    const info = await pdfInfo(completed, { custom: true });
    expect(info.EnvelopeId).toBe(envelopeId);
    expect(info.AuditId).toBe(auditId);
  });

  it('refuses a field on a page the document lacks, and a box outside its page', async () => {
    const outOfRange = await failure(
      signRevision(originalKey, `envelopes/${accountId}/x.pdf`, signerA, [
        { field: field({ type: 'signature', page: 0 }) },
        { field: field({ type: 'signature', page: 3 }) },
      ]),
    );
    expect(outOfRange).toMatchObject({ code: 'invalid_argument', field: 'fields.1.page' });
    expect(outOfRange.message).toContain('the document has 3 pages');
    const outside = await failure(
      signRevision(originalKey, `envelopes/${accountId}/x.pdf`, signerA, [
        { field: field({ type: 'signature', page: 0, x: 80, width: 30 }) },
      ]),
    );
    expect(outside).toMatchObject({ code: 'invalid_argument', field: 'fields.0' });
    expect(outside.message).toContain('leaves page 0');
    const noInitials = await failure(
      signRevision(originalKey, `envelopes/${accountId}/x.pdf`, signerA, [
        { field: field({ type: 'initials', page: 0, width: 12 }) },
      ]),
    );
    expect(noInitials).toMatchObject({ code: 'invalid_argument', field: 'fields.0' });
    expect(await sut.blob.stat(`envelopes/${accountId}/x.pdf`)).toBeUndefined();
  });

  it('refuses a missing source and a target among uploads, writing nothing', async () => {
    const missing = await failure(
      signRevision(`pending/${accountId}/none.pdf`, `envelopes/${accountId}/y.pdf`, signerA, fieldsA),
    );
    expect(missing).toMatchObject({ code: 'invalid_argument', field: 'sourceKey' });
    const upload = await failure(signRevision(originalKey, `uploads/${randomUUID()}`, signerA, fieldsA));
    expect(upload).toMatchObject({ code: 'invalid_argument', field: 'targetKey' });
    const notSigned = await failure(
      signRevision(originalKey, `envelopes/${accountId}/y.pdf`, signerA, [
        { field: field({ type: 'name', page: 0 }), value: 'Ann Lee' },
      ]),
    );
    expect(notSigned).toMatchObject({ code: 'invalid_argument', field: 'fields' });
    expect(await sut.blob.stat(`envelopes/${accountId}/y.pdf`)).toBeUndefined();
  });

  it('marks a copy as not complete on every page (pdf.mark-incomplete)', async () => {
    const targetKey = `downloads/${accountId}/${envelopeId}-incomplete.pdf`;
    const note = '1 of 2 signers have signed';
    const reply = await sut.client.request(PdfMarkIncomplete, { sourceKey: key1, targetKey, note });
    const marked = await sut.blob.getBuffer(targetKey);
    expect(reply).toEqual({ objectKey: targetKey, size: marked.length });
    expect((await pdfInfo(marked)).Pages).toBe('3');
    for (const page of [0, 1, 2]) {
      const text = await pdfText(marked, page);
      expect(text).toContain(`NOT COMPLETE — ${note}`);
    }
    // The revision itself is untouched.
    expect((await sut.blob.getBuffer(key1)).equals(revision1)).toBe(true);
  });
});

describe('a long certificate of completion', () => {
  it('runs over as many pages as its recipients take, each one named', async () => {
    const source = `pending/${accountId}/long.pdf`;
    await sut.blob.put(source, await makePdf({ pages: 1 }));
    const revision = await signRevision(source, `envelopes/${accountId}/long-1.pdf`, signerA, [
      { field: field({ type: 'signature', page: 0 }) },
    ]);
    const longAuditId = newAuditId();
    const recipients = Array.from({ length: 30 }, (_, i) => ({
      name: `Recipient Number${i}`,
      email: `r${i}@example.com`,
      role: 'signer' as const,
      order: i + 1,
      status: 'signed' as const,
      events: [
        {
          event: 'viewed',
          at: new Date().toISOString(),
          ipAddress: '192.0.2.1',
          userAgent: 'Agent/1.0 '.repeat(20),
        },
        { event: 'signed', at: new Date().toISOString(), ipAddress: '192.0.2.1', userAgent: 'Agent/1.0' },
      ],
    }));
    const done = await sut.client.request(PdfCompleteEnvelope, {
      accountId,
      auditId: longAuditId,
      envelopeId,
      sourceKey: revision.objectKey,
      fileName: 'long.pdf',
      subject: 'Thirty signers',
      senderEmail: 'sender@example.com',
      createdAt: new Date().toISOString(),
      originalHash: revision.fileHash,
      recipients,
    });
    const file = await sut.blob.getBuffer(done.signedKey);
    expect(done.pageCount).toBeGreaterThan(3);
    expect((await pdfInfo(file)).Pages).toBe(String(done.pageCount));
    const text = (await pdfText(file)).replace(/\s+/g, ' ');
    for (const recipient of recipients) expect(text).toContain(`${recipient.name} <${recipient.email}>`);
    expect(await pdfText(file, done.pageCount - 1)).toContain('Certificate of completion (continued)');
    expect(await signatures(file)).toEqual([
      { valid: true, wholeFile: false, subFilter: 'ETSI.CAdES.detached' },
      { valid: true, wholeFile: true, subFilter: 'ETSI.CAdES.detached' },
    ]);
  });
});

describe('a revision on a turned page', () => {
  it('draws the fields where a person sees them on a page rotated by 90°', async () => {
    const source = `pending/${accountId}/turned.pdf`;
    await sut.blob.put(source, await makePdf({ pages: 1, rotate: 90 }));
    const targetKey = `envelopes/${accountId}/turned-1.pdf`;
    const signatureField = field({ type: 'signature', page: 0, x: 60, y: 50, width: 30 });
    await signRevision(source, targetKey, signerA, [
      { field: signatureField },
      { field: field({ type: 'name', page: 0, x: 10, y: 10, width: 30 }), value: 'Ann Lee' },
    ]);
    const turned = await sut.blob.getBuffer(targetKey);
    const page = await renderPage(turned, 0, 60);
    // Rendered as seen: wide. The box in percent of the visible page (842 x 595 points).
    expect(page.width).toBeGreaterThan(page.height);
    const heightPct = ((A4.height * 0.3) / 3 / A4.width) * 100;
    const box = { x: 60, y: 50, width: 30, height: heightPct };
    expect(inkAt(page, box)).toBeGreaterThan(0.02);
    // Beside it, at the same height, blank paper: the box was not drawn turned or shifted.
    expect(inkAt(page, { x: 20, y: 50, width: 30, height: heightPct })).toBe(0);
    expect(inkAt(page, { x: 60, y: 70, width: 30, height: heightPct })).toBe(0);
    expect(await pdfText(turned)).toContain('Ann Lee');
    expect(await signatures(turned)).toEqual([
      { valid: true, wholeFile: true, subFilter: 'ETSI.CAdES.detached' },
    ]);
  });
});

describe('envelopes at PAdES B-LT', () => {
  it('appends a DSS after each revision and after the seal, and every signature still verifies', async () => {
    const longTerm = await startTestSigner({ PADES_LEVEL: 'B-LT' });
    try {
      const source = `pending/${accountId}/lt.pdf`;
      await longTerm.blob.put(source, await makePdf({ pages: 1 }));
      const revision = await longTerm.client.request(PdfSignRevision, {
        accountId,
        auditId,
        sourceKey: source,
        targetKey: `envelopes/${accountId}/lt-1.pdf`,
        fileName: 'lt.pdf',
        signer: signerA,
        signature: drawn,
        fields: [{ field: field({ type: 'signature', page: 0 }) }],
        reason: 'Signed by Ann Lee',
      });
      expect(revision.events[1]?.details).toMatchObject({ padesLevel: 'B-LT' });
      const done = await longTerm.client.request(PdfCompleteEnvelope, {
        accountId,
        auditId: newAuditId(),
        envelopeId,
        sourceKey: revision.objectKey,
        fileName: 'lt.pdf',
        subject: 'Long term',
        senderEmail: 'sender@example.com',
        createdAt: new Date().toISOString(),
        originalHash: revision.fileHash,
        recipients: [{ ...signerA, role: 'signer', order: 1, status: 'signed', events: [] }],
      });
      const file = await longTerm.blob.getBuffer(done.signedKey);
      const dss = file.toString('latin1').match(/\/Type \/DSS\b/g) ?? [];
      expect(dss.length).toBe(2);
      expect(await signatures(file)).toEqual([
        { valid: true, wholeFile: false, subFilter: 'ETSI.CAdES.detached' },
        { valid: true, wholeFile: false, subFilter: 'ETSI.CAdES.detached' },
      ]);
      expect((await qpdfCheck(file)).ok).toBe(true);
    } finally {
      await longTerm.stop();
    }
  });
});

describe('pdf.inspect: page sizes and the upload hash', () => {
  it('answers visible sizes (a rotated page swapped) and the sha256 of the upload', async () => {
    const portrait = await makePdf({ pages: 1 });
    const plain = await sut.inspect(portrait);
    expect(plain).toEqual({ pageCount: 1, pageSizes: [A4], fileHash: sha256(portrait) });
    const rotated = await makePdf({ pages: 2, rotate: 90 });
    const turned = await sut.inspect(rotated);
    expect(turned).toEqual({
      pageCount: 2,
      pageSizes: [
        { width: A4.height, height: A4.width },
        { width: A4.height, height: A4.width },
      ],
      fileHash: sha256(rotated),
    });
  });

  it('measures a page within its crop box', async () => {
    const cropped = await makePdf({ pages: 1, cropBox: [50, 100, 300, 400] });
    expect(await sut.inspect(cropped)).toMatchObject({ pageSizes: [{ width: 300, height: 400 }] });
  });
});
