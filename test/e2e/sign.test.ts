import { createHash } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  inkAt,
  inkColorAt,
  JPEG_MARK,
  makeEncryptedPdf,
  makeJpeg,
  makePdf,
  makePng,
  pdfFonts,
  pdfInfo,
  pdfSig,
  pdfText,
  pdfXmp,
  qpdfCheck,
  renderPage,
  type PercentBox,
  type RenderedPage,
} from '@esign/testing';
import { auth, baseUrl, createAccount, dataUri, errorOf, sign, type TestAccount } from './harness';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const AUDIT_ID = /^[A-Z]{2,8}-[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/;
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

/** Visible page size from pdfinfo's "Page size" and "Page rot" of the first page. */
const visibleSize = (info: Record<string, string>): [number, number] => {
  const [w, h] = (info['Page size'] ?? '')
    .split(' ')
    .filter((t) => /^[\d.]+$/.test(t))
    .map(Number);
  const rot = Number(info['Page rot'] ?? 0);
  return rot % 180 === 0 ? [w ?? 0, h ?? 0] : [h ?? 0, w ?? 0];
};

/** Where a signature of aspect ratio `aspect` (width / height) lands for a position, in percent of the page. */
const boxOf = (
  p: { x: number; y: number; width: number },
  page: [number, number],
  aspect = 3,
): PercentBox => ({
  x: p.x,
  y: p.y,
  width: p.width,
  height: (((p.width / 100) * page[0]) / aspect / page[1]) * 100,
});

/** Ink inside the box, and none anywhere else on the page (a 1.5% margin around the box allowed). */
const expectInkOnlyIn = (page: RenderedPage, box: PercentBox) => {
  expect(inkAt(page, box)).toBeGreaterThan(0.01);
  const m = 1.5;
  const [x0, y0, x1, y1] = [box.x - m, box.y - m, box.x + box.width + m, box.y + box.height + m];
  const outside = [
    { x: 0, y: 0, width: 100, height: Math.max(0, y0) },
    { x: 0, y: y1, width: 100, height: Math.max(0, 100 - y1) },
    { x: 0, y: y0, width: Math.max(0, x0), height: y1 - y0 },
    { x: x1, y: y0, width: Math.max(0, 100 - x1), height: y1 - y0 },
  ].filter((b) => b.width > 0 && b.height > 0);
  for (const b of outside)
    expect(inkAt(page, b), `ink outside the signature at ${JSON.stringify(b)}`).toBe(0);
};

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
      {
        file: { bytes: original, name: 'contract.pdf', type: 'application/pdf' },
        fields: { ...signer, signatureData: signature },
      },
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
    expect(res.headers.get('x-file-hash')).toBe(`sha256:${sha256(pdf)}`);

    expect((await qpdfCheck(pdf)).ok).toBe(true);
    expect((await pdfInfo(pdf)).Pages).toBe('2');
    const info = await pdfInfo(pdf, { custom: true });
    expect(info.AuditId).toBe(auditId);
    expect(info.SignerEmail).toBe('ada@example.com');
    expect(await pdfXmp(pdf)).toContain(auditId);

    const auditPage = (await pdfText(pdf, 1)).replace(/\s+/g, ' ');
    for (const expected of [
      auditId,
      'Ada Lovelace',
      'ada@example.com',
      '127.0.0.1',
      'e2e-agent/1.0 (audit check)',
      signedAt,
      sha256(original),
    ]) {
      expect(auditPage).toContain(expected);
    }

    const seal = await pdfSig(pdf);
    expect(seal.stdout).toContain('Signature Validation: Signature is Valid.');
    // PAdES B-LT (the default): the signed revision, then one update that only adds the DSS.
    expect(seal.stdout).toContain('Not total document signed');
    const signedEnd = Number(/Signed Ranges: \[0 - \d+\], \[(\d+) - (\d+)\]/.exec(seal.stdout)?.[2]);
    const update = pdf.subarray(signedEnd).toString('latin1');
    // Our certificate and the time-stamping authority's, each once.
    const certRefs = /\/Type \/DSS \/Certs \[([^\]]*)\]/.exec(update)?.[1]?.match(/\d+ 0 R/g) ?? [];
    expect(certRefs.length).toBeGreaterThanOrEqual(2);
    expect(update.match(/%%EOF/g)).toHaveLength(1);

    // Default placement: the signature's top-left corner at x 50%, y 85%, 25% of the page wide.
    expectInkOnlyIn(await renderPage(pdf, 0), boxOf({ x: 50, y: 85, width: 25 }, [595, 842]));
  });

  it('records the document durably before answering, with fileHash of exactly the returned bytes', async () => {
    const { res, pdf } = await signOk({
      file: { bytes: await makePdf({ pages: 2 }), name: 'two-pages.pdf' },
      fields: { ...signer, signatureData: signature },
    });
    const auditId = res.headers.get('x-audit-id') ?? '';
    const detail = await fetch(`${baseUrl}/api/v1/documents/${auditId}`, { headers: auth(account.apiKey) });
    expect(detail.status).toBe(200);
    const doc = (await detail.json()) as Record<string, unknown> & {
      auditLog: { event: string; timestamp: string }[];
    };
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
    // The signature's RFC 3161 timestamp (from the stack's local openssl TSA) is in the audit log.
    const sealed = (doc.auditLog as { event: string; details?: Record<string, unknown> }[]).find(
      (e) => e.event === 'document.sealed',
    );
    expect(String(sealed?.details?.timestampAuthority)).toContain('CN=esign test TSA');
    expect(String(sealed?.details?.timestampTime)).toMatch(ISO_UTC);
  });

  it('places several signatures on one or several pages from positions, ignoring x, y, page and width', async () => {
    const positions = [
      { x: 10, y: 10, page: 0, width: 20 },
      { x: 60, y: 60, page: 0, width: 30 },
      { x: 30, y: 40, page: 2, width: 40 },
    ];
    const size: [number, number] = [595.28, 841.89];
    const { pdf } = await signOk({
      file: { bytes: await makePdf({ pages: 3 }), name: 'three.pdf' },
      fields: { ...signer, signatureData: signature, positions, x: 90, y: 5, page: 1, width: 50 },
    });
    expect((await pdfInfo(pdf)).Pages).toBe('4');
    const [p0, p1, p2] = await Promise.all([renderPage(pdf, 0), renderPage(pdf, 1), renderPage(pdf, 2)]);
    expect(inkAt(p0, boxOf(positions[0] ?? positions[1] ?? { x: 0, y: 0, width: 0 }, size))).toBeGreaterThan(
      0.01,
    );
    expect(inkAt(p0, boxOf(positions[1] ?? { x: 0, y: 0, width: 0 }, size))).toBeGreaterThan(0.01);
    expect(inkAt(p0, { x: 0, y: 20, width: 100, height: 38 })).toBe(0);
    expectInkOnlyIn(p2, boxOf({ x: 30, y: 40, width: 40 }, size));
    expect(inkAt(p1, { x: 0, y: 0, width: 100, height: 100 })).toBe(0);
  });

  it.each([90, 180, 270] as const)(
    'places the signature where a person sees it on a page rotated by %i degrees, upright',
    async (rotate) => {
      const { pdf } = await signOk({
        file: { bytes: await makePdf({ pages: 1, size: [612, 792], rotate }), name: `rotated-${rotate}.pdf` },
        fields: { ...signer, signatureData: signature, positions: [{ x: 5, y: 5, page: 0, width: 30 }] },
      });
      const visible = visibleSize(await pdfInfo(pdf));
      expect(visible).toEqual(rotate === 180 ? [612, 792] : [792, 612]);
      // A wide (3:1) signature box at the top-left of the page as seen: only upright ink fits in it.
      expectInkOnlyIn(await renderPage(pdf, 0), boxOf({ x: 5, y: 5, width: 30 }, visible));
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
    const visible = visibleSize(await pdfInfo(pdf));
    expect(visible).toEqual([400, 500]);
    expectInkOnlyIn(await renderPage(pdf, 0), boxOf({ x: 50, y: 50, width: 40 }, visible));
  });

  it('moves a signature that would cross the page edge back inside the page', async () => {
    const { pdf } = await signOk({
      file: { bytes: await makePdf({ pages: 1, size: [600, 600] }), name: 'edge.pdf' },
      fields: { ...signer, signatureData: signature, x: 100, y: 100, width: 40 },
    });
    expectInkOnlyIn(await renderPage(pdf, 0), { x: 60, y: 100 - 40 / 3, width: 40, height: 40 / 3 });
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
  ])('renders a typed signature in %s in sigColor, with embedded fonts', async (_script, typedName) => {
    const { pdf } = await signOk({
      file: { bytes: await makePdf({ pages: 1 }), name: 'typed.pdf' },
      fields: {
        ...signer,
        signerName: typedName,
        mode: 'type',
        typedName,
        sigColor: '#b91c1c',
        positions: [{ x: 20, y: 30, page: 0, width: 40 }],
      },
    });
    const page = await renderPage(pdf, 0, 72);
    const box = { x: 20, y: 29, width: 40, height: 14 };
    expect(inkAt(page, box)).toBeGreaterThan(0.01);
    expect(inkAt(page, { x: 0, y: 45, width: 100, height: 55 })).toBe(0);
    const [r, g, b] = inkColorAt(page, box) ?? [0, 0, 0];
    expect(r).toBeGreaterThan(g + 40);
    expect(r).toBeGreaterThan(b + 40);
    const fonts = await pdfFonts(pdf);
    expect(fonts.filter((f) => !/Helvetica/.test(f.name)).length).toBeGreaterThan(0);
    for (const f of fonts.filter((f) => !/Helvetica/.test(f.name)))
      expect(f).toMatchObject({ embedded: true, subset: true });
    // The audit page names the signer in the same script.
    expect((await pdfText(pdf, 1)).replace(/\s+/g, ' ')).toContain(typedName.split(' ')[0] ?? typedName);
  });

  it('colours a typed signature #1e3a8a by default', async () => {
    const { pdf } = await signOk({
      file: { bytes: await makePdf({ pages: 1 }), name: 'typed.pdf' },
      fields: {
        ...signer,
        mode: 'type',
        typedName: 'Ada Lovelace',
        positions: [{ x: 20, y: 30, page: 0, width: 40 }],
      },
    });
    const [r, g, b] = inkColorAt(await renderPage(pdf, 0, 72), { x: 20, y: 29, width: 40, height: 14 }) ?? [
      0, 0, 0,
    ];
    expect(b).toBeGreaterThan(r + 30);
    expect(b).toBeGreaterThan(g + 10);
  });

  it('stamps an uploaded JPEG signature in upload mode', async () => {
    const jpeg = await makeJpeg({ width: 240, height: 80 });
    const { pdf } = await signOk({
      file: { bytes: await makePdf({ pages: 1, size: [600, 800] }), name: 'upload.pdf' },
      fields: {
        ...signer,
        mode: 'upload',
        signatureData: dataUri(jpeg, 'image/jpeg'),
        positions: [{ x: 10, y: 10, page: 0, width: 30 }],
      },
    });
    expect(inkAt(await renderPage(pdf, 0), boxOf({ x: 10, y: 10, width: 30 }, [600, 800]))).toBeGreaterThan(
      0.01,
    );
  });

  it('turns a PNG image into a one-page PDF sized to the image, then signs it', async () => {
    const { pdf, res } = await signOk({
      file: {
        bytes: await makePng({ width: 800, height: 400, color: '#222222' }),
        name: 'scan.png',
        type: 'image/png',
      },
      fields: { ...signer, signatureData: signature, positions: [{ x: 60, y: 60, page: 0, width: 30 }] },
    });
    expect(res.headers.get('content-disposition')).toContain('scan-signed.pdf');
    const info = await pdfInfo(pdf);
    expect(info.Pages).toBe('2');
    expect(visibleSize(info)).toEqual([800, 400]);
  });

  it('turns a phone photo upright according to its EXIF orientation', async () => {
    // Upright 300x400 portrait; stored turned (orientation 6), as phones do.
    const photo = await makeJpeg({ width: 300, height: 400, exifOrientation: 6 });
    const { pdf } = await signOk({
      file: { bytes: photo, name: 'photo.jpg', type: 'image/jpeg' },
      fields: { ...signer, signatureData: signature },
    });
    expect(visibleSize(await pdfInfo(pdf))).toEqual([300, 400]);
    const page = await renderPage(pdf, 0);
    // The dark mark sits top-left in the upright photo.
    expect(inkAt(page, JPEG_MARK)).toBeGreaterThan(0.5);
    expect(
      inkAt(page, {
        x: 100 - JPEG_MARK.x - JPEG_MARK.width,
        y: JPEG_MARK.y,
        width: JPEG_MARK.width,
        height: JPEG_MARK.height,
      }),
    ).toBeLessThan(0.1);
  });

  it('takes the file type from the bytes, not from the name or the declared type', async () => {
    const { pdf } = await signOk({
      file: { bytes: await makePdf({ pages: 1 }), name: 'actually-a-pdf.png', type: 'image/png' },
      fields: { ...signer, signatureData: signature },
    });
    expect((await pdfInfo(pdf)).Pages).toBe('2');
    const res = await sign(account.apiKey, {
      file: {
        bytes: Buffer.from('just some text, not a PDF at all'),
        name: 'fake.pdf',
        type: 'application/pdf',
      },
      fields: { ...signer, signatureData: signature },
    });
    expect(res.status).toBe(400);
    expect(await errorOf(res)).toMatch(/^file /);
  });
  it('countersigns a signed PDF as an incremental update: both signatures verify, the record says so', async () => {
    const first = await signOk({
      file: { bytes: await makePdf({ pages: 1 }), name: 'agreement.pdf' },
      fields: { ...signer, signatureData: signature, x: '5', y: '80', width: '20' },
    });
    const second = await signOk({
      file: { bytes: first.pdf, name: 'agreement-signed.pdf' },
      fields: {
        signerName: 'Grace Hopper',
        signerEmail: 'grace@example.com',
        signatureData: signature,
        x: '60',
        y: '80',
        width: '20',
      },
    });
    const pdf = second.pdf;
    expect(pdf.subarray(0, first.pdf.length).equals(first.pdf)).toBe(true);
    const report = (await pdfSig(pdf)).stdout;
    expect(report.match(/Signature Validation: Signature is Valid\./g)).toHaveLength(2);
    expect(report).toContain(`Signature ${first.res.headers.get('x-audit-id')}`);
    expect((await qpdfCheck(pdf)).ok).toBe(true);
    expect((await pdfInfo(pdf)).Pages).toBe('3');
    const page = await renderPage(pdf, 0);
    expect(inkAt(page, { x: 6, y: 81, width: 18, height: 4 })).toBeGreaterThan(0.01);
    expect(inkAt(page, { x: 61, y: 81, width: 18, height: 4 })).toBeGreaterThan(0.01);

    const auditId = second.res.headers.get('x-audit-id') ?? '';
    const detail = await fetch(`${baseUrl}/api/v1/documents/${auditId}`, { headers: auth(account.apiKey) });
    const doc = (await detail.json()) as {
      fileHash: string;
      auditLog: { event: string; details?: Record<string, unknown> }[];
    };
    expect(doc.fileHash).toBe(`sha256:${sha256(pdf)}`);
    expect(doc.auditLog.find((e) => e.event === 'document.sealed')?.details).toMatchObject({
      priorSignatures: 1,
    });
    expect(doc.auditLog.find((e) => e.event === 'document.uploaded')?.details).toMatchObject({
      originalHash: `sha256:${sha256(first.pdf)}`,
    });
  });

  it('signs a PDF encrypted with an owner password only: decrypted, and the record says it was rewritten', async () => {
    const encrypted = await makeEncryptedPdf();
    const { res, pdf } = await signOk({
      file: { bytes: encrypted, name: 'statement.pdf' },
      fields: { ...signer, signatureData: signature },
    });
    expect((await pdfSig(pdf)).stdout).toContain('Signature is Valid.');
    expect((await qpdfCheck(pdf)).ok).toBe(true);
    expect(await pdfText(pdf, 0)).toContain('secret (page 1)');
    const detail = await fetch(`${baseUrl}/api/v1/documents/${res.headers.get('x-audit-id') ?? ''}`, {
      headers: auth(account.apiKey),
    });
    const doc = (await detail.json()) as { auditLog: { event: string; details?: Record<string, unknown> }[] };
    expect(doc.auditLog.find((e) => e.event === 'document.sealed')?.details).toMatchObject({
      repaired: true,
      repairReason: 'encrypted',
    });
    expect(doc.auditLog.find((e) => e.event === 'document.uploaded')?.details).toMatchObject({
      originalHash: `sha256:${sha256(encrypted)}`,
    });
  });
});
