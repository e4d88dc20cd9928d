import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeJpeg, makePdf, makePng } from '@esign/testing';
import { createAccount, dataUri, errorOf, sign, type TestAccount, baseUrl, auth } from './harness';
import { inkColour, inkIn, pdfFonts, pdfInfo, pdfMetadata, pdfSignatures, pdfText, qpdfCheck, renderPage } from './pdf-tools';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const AUDIT_ID = /^[A-Z]{2,8}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

let account: TestAccount;
let signature: string;
const signer = { signerName: 'Ada Lovelace', signerEmail: 'ada@example.com' };

beforeAll(async () => {
  account = await createAccount('business');
  signature = dataUri(await makePng({ width: 300, height: 100 }));
});

const signOk = async (input: Parameters<typeof sign>[1], headers?: Record<string, string>) => {
  const res = await sign(account.apiKey, input, headers);
  if (res.status !== 200) throw new Error(`sign failed: ${res.status} ${await res.text()}`);
  return { res, pdf: Buffer.from(await res.arrayBuffer()) };
};

describe('POST /api/v1/sign', () => {
  it('signs a PDF with the defaults and returns it with its audit ID, timestamp and a valid digital signature', async () => {
    const original = await makePdf({ pages: 1, size: [595, 842] });
    const before = Date.now();
    const { res, pdf } = await signOk(
      { file: { bytes: original, name: 'contract.pdf', type: 'application/pdf' }, fields: { ...signer, signatureData: signature } },
      { 'User-Agent': 'e2e-agent/1.0 (audit check)' },
    );
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="contract-signed\.pdf"/);
    const auditId = res.headers.get('x-audit-id') ?? '';
    expect(auditId).toMatch(AUDIT_ID);
    const signedAt = res.headers.get('x-signed-at') ?? '';
    expect(signedAt).toMatch(ISO_UTC);
    expect(Date.parse(signedAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(signedAt)).toBeLessThanOrEqual(Date.now() + 1000);

    expect((await qpdfCheck(pdf)).ok).toBe(true);
    const info = await pdfInfo(pdf);
    expect(info.pages).toBe(2);

    const auditPage = await pdfText(pdf, 2);
    for (const expected of [auditId, 'Ada Lovelace', 'ada@example.com', '127.0.0.1', 'e2e-agent/1.0 (audit check)', sha256(original)]) {
      expect(auditPage.replace(/\s+/g, ' ')).toContain(expected);
    }
    expect(auditPage).toContain(signedAt.slice(0, 16).replace('T', ' '));

    const meta = await pdfMetadata(pdf);
    expect(meta.info).toContain(auditId);
    expect(meta.xmp).toContain(auditId);

    const sig = await pdfSignatures(pdf);
    expect(sig).toContain('Signature Validation: Signature is Valid.');
    expect(sig).toContain('Total document signed');

    // Default placement: x 50%, y 85%, width 25% of the page; top-left corner of the signature at (x, y).
    const page = await renderPage(pdf, 0);
    expect(inkIn(page, { x: 51, y: 85.5, w: 23, h: 5 })).toBeGreaterThan(0.05);
    expect(inkIn(page, { x: 0, y: 0, w: 100, h: 80 })).toBe(0);
    expect(inkIn(page, { x: 0, y: 80, w: 48, h: 20 })).toBe(0);
  });

  it('records the document durably before answering, with fileHash of exactly the returned bytes', async () => {
    const { res, pdf } = await signOk({
      file: { bytes: await makePdf({ pages: 2 }), name: 'two-pages.pdf' },
      fields: { ...signer, signatureData: signature },
    });
    const auditId = res.headers.get('x-audit-id') ?? '';
    const detail = await fetch(`${baseUrl}/api/v1/documents/${auditId}`, { headers: auth(account.apiKey) });
    expect(detail.status).toBe(200);
    const doc = (await detail.json()) as Record<string, unknown> & { auditLog: { event: string; timestamp: string }[] };
    expect(doc).toMatchObject({
      auditId,
      fileName: 'two-pages.pdf',
      signerName: 'Ada Lovelace',
      signerEmail: 'ada@example.com',
      ipAddress: '127.0.0.1',
      signedAt: res.headers.get('x-signed-at'),
      fileHash: `sha256:${sha256(pdf)}`,
    });
    expect(doc.auditLog.map((e) => e.event)).toEqual([
      'document.uploaded',
      'signature.applied',
      'document.sealed',
      'document.recorded',
    ]);
    for (const e of doc.auditLog) expect(e.timestamp).toMatch(ISO_UTC);
  });

  it('places several signatures on one or several pages from positions, ignoring x, y, page and width', async () => {
    const positions = [
      { x: 10, y: 10, page: 0, width: 20 },
      { x: 60, y: 60, page: 0, width: 30 },
      { x: 30, y: 40, page: 2, width: 40 },
    ];
    const { pdf } = await signOk({
      file: { bytes: await makePdf({ pages: 3 }), name: 'three.pdf' },
      fields: { ...signer, signatureData: signature, positions, x: 90, y: 5, page: 1, width: 50 },
    });
    expect((await pdfInfo(pdf)).pages).toBe(4);
    const [p0, p1, p2] = await Promise.all([renderPage(pdf, 0), renderPage(pdf, 1), renderPage(pdf, 2)]);
    expect(inkIn(p0, { x: 11, y: 10.5, w: 18, h: 3 })).toBeGreaterThan(0.05);
    expect(inkIn(p0, { x: 61, y: 60.5, w: 28, h: 5 })).toBeGreaterThan(0.05);
    expect(inkIn(p2, { x: 31, y: 40.5, w: 38, h: 6 })).toBeGreaterThan(0.05);
    expect(inkIn(p1, { x: 0, y: 0, w: 100, h: 100 })).toBe(0);
    expect(inkIn(p0, { x: 85, y: 0, w: 15, h: 10 })).toBe(0);
  });

  it.each([90, 180, 270] as const)(
    'places the signature where a person sees it on a page rotated by %i degrees',
    async (rotate) => {
      const { pdf } = await signOk({
        file: { bytes: await makePdf({ pages: 1, size: [612, 792], rotate }), name: `rotated-${rotate}.pdf` },
        fields: { ...signer, signatureData: signature, positions: [{ x: 5, y: 5, page: 0, width: 30 }] },
      });
      const page = await renderPage(pdf, 0);
      expect(inkIn(page, { x: 6, y: 5.5, w: 28, h: 4 })).toBeGreaterThan(0.05);
      expect(inkIn(page, { x: 50, y: 20, w: 50, h: 80 })).toBe(0);
      // Upright: a 3:1 signature stays wider than tall as rendered.
      expect(inkIn(page, { x: 6, y: 20, w: 28, h: 30 })).toBe(0);
    },
  );

  it('places the signature relative to the visible area of a page whose crop box does not start at 0,0', async () => {
    const { pdf } = await signOk({
      file: {
        bytes: await makePdf({ pages: 1, size: [600, 800], cropBox: [100, 200, 400, 500] }),
        name: 'cropped.pdf',
      },
      fields: { ...signer, signatureData: signature, positions: [{ x: 50, y: 50, page: 0, width: 40 }] },
    });
    const info = await pdfInfo(pdf);
    expect(info.sizes[0]).toMatchObject({ width: 400, height: 500 });
    const page = await renderPage(pdf, 0);
    expect(inkIn(page, { x: 51, y: 50.5, w: 38, h: 7 })).toBeGreaterThan(0.05);
    expect(inkIn(page, { x: 0, y: 0, w: 45, h: 100 })).toBe(0);
  });

  it.each([
    ['accents', 'Zoë Ångström-Ñúñez'],
    ['Cyrillic', 'Дмитрий Шостакович'],
    ['Greek', 'Ελευθέριος Βενιζέλος'],
    ['Chinese', '王小明'],
    ['Japanese', 'やまだ たろう'],
    ['Korean', '김민준'],
    ['Arabic', 'محمد بن موسى'],
    ['Hebrew', 'שרה לוי'],
  ])('renders a typed signature in %s with embedded fonts', async (_script, typedName) => {
    const { pdf } = await signOk({
      file: { bytes: await makePdf({ pages: 1 }), name: 'typed.pdf' },
      fields: { ...signer, signerName: typedName, mode: 'type', typedName, sigColor: '#b91c1c', positions: [{ x: 20, y: 30, page: 0, width: 40 }] },
    });
    const page = await renderPage(pdf, 0, 60);
    expect(inkIn(page, { x: 20, y: 29, w: 40, h: 12 })).toBeGreaterThan(0.01);
    const [r, g, b] = inkColour(page, { x: 20, y: 29, w: 40, h: 12 });
    expect(r).toBeGreaterThan(g + 40);
    expect(r).toBeGreaterThan(b + 40);
    const fonts = await pdfFonts(pdf);
    const rows = fonts.split('\n').slice(2).filter(Boolean);
    expect(rows.length).toBeGreaterThan(0);
    // Every font used on the signature is embedded (the "emb" column).
    for (const row of rows.filter((r) => !/Helvetica/.test(r))) expect(row).toMatch(/\byes\b/);
    // The audit page names the signer in the same script.
    expect((await pdfText(pdf, 2)).replace(/\s+/g, ' ')).toContain(typedName.split(' ')[0] ?? typedName);
  });

  it('colours a typed signature #1e3a8a by default', async () => {
    const { pdf } = await signOk({
      file: { bytes: await makePdf({ pages: 1 }), name: 'typed.pdf' },
      fields: { ...signer, mode: 'type', typedName: 'Ada Lovelace', positions: [{ x: 20, y: 30, page: 0, width: 40 }] },
    });
    const [r, g, b] = inkColour(await renderPage(pdf, 0, 60), { x: 20, y: 29, w: 40, h: 12 });
    expect(b).toBeGreaterThan(r + 30);
    expect(b).toBeGreaterThan(g + 10);
  });

  it('stamps an uploaded JPEG signature in upload mode', async () => {
    const jpeg = await makeJpeg({ width: 240, height: 80 });
    const { pdf } = await signOk({
      file: { bytes: await makePdf({ pages: 1 }), name: 'upload.pdf' },
      fields: { ...signer, mode: 'upload', signatureData: dataUri(jpeg, 'image/jpeg'), positions: [{ x: 10, y: 10, page: 0, width: 30 }] },
    });
    expect(inkIn(await renderPage(pdf, 0), { x: 11, y: 10.5, w: 28, h: 4 })).toBeGreaterThan(0.05);
  });

  it('turns a PNG image into a one-page PDF sized to the image, then signs it', async () => {
    const { pdf, res } = await signOk({
      file: { bytes: await makePng({ width: 800, height: 400, color: '#ffffff' }), name: 'scan.png', type: 'image/png' },
      fields: { ...signer, signatureData: signature, positions: [{ x: 60, y: 60, page: 0, width: 30 }] },
    });
    expect(res.headers.get('content-disposition')).toContain('scan-signed.pdf');
    const info = await pdfInfo(pdf);
    expect(info.pages).toBe(2);
    const first = info.sizes[0];
    expect(first && first.width / first.height).toBeCloseTo(2, 2);
  });

  it('turns a phone photo upright according to its EXIF orientation', async () => {
    // Stored 400x300 landscape with orientation 6 (rotate 90° clockwise to view): the page is portrait.
    const photo = await makeJpeg({ width: 400, height: 300, exifOrientation: 6 });
    const { pdf } = await signOk({
      file: { bytes: photo, name: 'photo.jpg', type: 'image/jpeg' },
      fields: { ...signer, signatureData: signature },
    });
    const first = (await pdfInfo(pdf)).sizes[0];
    expect(first && first.height > first.width).toBe(true);
  });

  it('takes the file type from the bytes, not from the name or the declared type', async () => {
    const { pdf } = await signOk({
      file: { bytes: await makePdf({ pages: 1 }), name: 'actually-a-pdf.png', type: 'image/png' },
      fields: { ...signer, signatureData: signature },
    });
    expect((await pdfInfo(pdf)).pages).toBe(2);
    const res = await sign(account.apiKey, {
      file: { bytes: Buffer.from('just some text, not a PDF at all'), name: 'fake.pdf', type: 'application/pdf' },
      fields: { ...signer, signatureData: signature },
    });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatch(/^file /);
  });
});
