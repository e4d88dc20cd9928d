import { createHash, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBlobStore } from '@esign/blob';
import type { BlobStore } from '@esign/blob';
import { connectBus } from '@esign/bus';
import type { Bus } from '@esign/bus';
import { PdfInspect, PdfSign, ServiceError, ZAuditId } from '@esign/contracts';
import type { TDocumentKind, TPosition, TSignPdfRequest, TSignature } from '@esign/contracts';
import { createLogger } from '@esign/telemetry';
import {
  inkAt,
  makeEncryptedPdf,
  makeGarbagePdf,
  makeJpeg,
  makePdf,
  makePng,
  makeTruncatedPdf,
  pdfFonts,
  pdfInfo,
  pdfSig,
  pdfText,
  pdfXmp,
  qpdfCheck,
  renderPage,
  startTestS3,
  testNatsUrl,
  uniqueBusPrefix,
} from '@esign/testing';
import type { TestS3 } from '@esign/testing';
import { startPdfSigner, ZPdfSignerEnv } from '../src/index';
import type { PdfSignerService } from '../src/index';

const quiet = createLogger({ service: 'pdf-signer-test', level: 'error', write: () => undefined });
const accountId = randomUUID();
const signer = {
  name: 'Jane Doe',
  email: 'jane.doe@example.com',
  ipAddress: '203.0.113.42',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) TestBrowser/1.0',
};

let s3: TestS3;
let service: PdfSignerService;
let client: Bus;
let blob: BlobStore;
let png: Buffer;

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

beforeAll(async () => {
  s3 = await startTestS3();
  const prefix = uniqueBusPrefix('pdfsig');
  const config = ZPdfSignerEnv.parse({
    NATS_URL: await testNatsUrl(),
    BUS_PREFIX: prefix,
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY: s3.accessKey,
    S3_SECRET_KEY: s3.secretKey,
    S3_REGION: s3.region,
    S3_BUCKET: 'pdf-signer-test',
    LOG_LEVEL: 'error',
  });
  service = await startPdfSigner(config, { logger: quiet });
  client = await connectBus({
    url: config.NATS_URL,
    name: 'pdf-signer-test',
    prefix,
    logger: quiet,
    timeoutMs: 30_000,
  });
  blob = createBlobStore({
    endpoint: s3.endpoint,
    accessKey: s3.accessKey,
    secretKey: s3.secretKey,
    bucket: 'pdf-signer-test',
    region: s3.region,
  });
  png = await makePng({ width: 600, height: 200, color: '#1e3a8a' });
});

afterAll(async () => {
  await client?.drain();
  await service?.stop();
  await s3?.stop();
});

interface SignOptions {
  kind?: TDocumentKind;
  fileName?: string;
  signature?: TSignature;
  positions?: TPosition[];
  signer?: TSignPdfRequest['signer'];
  uploadKey?: string;
}

/** Upload `bytes`, call pdf.sign over NATS, fetch the signed PDF. */
const signUpload = async (bytes: Buffer, options: SignOptions = {}) => {
  const uploadKey = options.uploadKey ?? `uploads/${randomUUID()}`;
  await blob.put(uploadKey, bytes);
  const receivedAt = new Date().toISOString();
  const reply = await client.request(PdfSign, {
    accountId,
    uploadKey,
    fileName: options.fileName ?? 'contract.pdf',
    kind: options.kind ?? 'pdf',
    signature: options.signature ?? { mode: 'draw', imageBase64: png.toString('base64') },
    positions: options.positions ?? [{ x: 50, y: 85, page: 0, width: 25 }],
    signer: options.signer ?? signer,
    receivedAt,
  });
  const signed = await blob.getBuffer(reply.signedKey);
  return { reply, signed, uploadKey, receivedAt };
};

/** The ServiceError a request fails with. */
const signError = async (bytes: Buffer, options: SignOptions = {}) => {
  try {
    await signUpload(bytes, options);
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected pdf.sign to fail');
};

describe('pdf.sign', () => {
  it('signs a PDF: valid seal over the whole file, audit page, metadata, hashes, upload deleted', async () => {
    const original = await makePdf({ pages: 2, text: 'Contract' });
    const { reply, signed, uploadKey, receivedAt } = await signUpload(original, {
      fileName: 'folder/Contract v2.pdf',
    });

    expect(ZAuditId.safeParse(reply.auditId).success).toBe(true);
    expect(reply.signedAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(reply.signedKey).toBe(`signed/${accountId}/${reply.auditId}.pdf`);
    expect(reply.signedFileName).toBe('Contract v2-signed.pdf');
    expect(reply.fileHash).toBe(sha256(signed));
    expect(reply.originalHash).toBe(sha256(original));
    expect(reply.size).toBe(signed.length);
    expect(reply.pageCount).toBe(3);
    expect(reply.events.map((e) => e.event)).toEqual([
      'document.uploaded',
      'signature.applied',
      'document.sealed',
    ]);
    expect(reply.events[0]).toMatchObject({
      timestamp: receivedAt,
      details: {
        fileName: 'folder/Contract v2.pdf',
        kind: 'pdf',
        size: original.length,
        originalHash: reply.originalHash,
      },
    });
    expect(reply.events[1]?.details).toMatchObject({ mode: 'draw', signatures: 1, pages: '1' });
    expect(reply.events[2]).toMatchObject({
      timestamp: reply.signedAt,
      details: { fileHash: reply.fileHash },
    });
    expect(reply.events[2]?.details.certificateSha256).toBe(service.certificateFingerprint);

    expect((await qpdfCheck(signed)).ok).toBe(true);
    expect((await pdfInfo(signed)).Pages).toBe('3');
    const sig = await pdfSig(signed);
    expect(sig.stdout).toContain('Signature is Valid.');
    // The service seals at PAdES B-LT by default: a DSS update follows the signature.
    expect(sig.stdout).toContain('Not total document signed');
    expect(reply.events[2]?.details.padesLevel).toBe('B-LT');
    expect(signed.toString('latin1')).toMatch(/\/Type \/DSS \/Certs \[\d+ 0 R/);
    expect(sig.stdout).toContain('adbe.pkcs7.detached');

    const audit = (await pdfText(signed, 2)).replace(/\s+/g, ' ');
    for (const value of [
      reply.auditId,
      signer.name,
      signer.email,
      signer.ipAddress,
      signer.userAgent,
      reply.originalHash,
    ]) {
      expect(audit).toContain(value);
    }
    expect(audit).toContain(reply.signedAt);

    const info = await pdfInfo(signed, { custom: true });
    expect(info.AuditId).toBe(reply.auditId);
    expect(info.SignerName).toBe(signer.name);
    expect(info.SignerEmail).toBe(signer.email);
    expect(info.SignerIP).toBe(signer.ipAddress);
    expect(info.SignedAt).toBe(reply.signedAt);
    expect(info.OriginalSHA256).toBe(reply.originalHash);
    expect(info.Subject).toContain(reply.auditId);
    expect(info.Keywords).toContain(reply.auditId);
    const xmp = await pdfXmp(signed);
    expect(xmp).toContain(`<esign:AuditId>${reply.auditId}</esign:AuditId>`);
    expect(xmp).toContain(`<esign:SignerEmail>${signer.email}</esign:SignerEmail>`);

    expect(await blob.stat(uploadKey)).toBeUndefined();
  });

  it('stamps ink where the positions say, several on one page and on several pages', async () => {
    const original = await makePdf({ pages: 3, size: [612, 792] });
    const positions = [
      { x: 5, y: 5, page: 0, width: 30 },
      { x: 60, y: 80, page: 0, width: 30 },
      { x: 40, y: 40, page: 2, width: 20 },
    ];
    const { signed, reply } = await signUpload(original, { positions });
    expect(reply.events[1]?.details).toMatchObject({ signatures: 3, pages: '1,3' });
    const first = await renderPage(signed, 0);
    // 600x200 image at 30% width: the box is 30% wide and 30 * (200/600) * 612/792 = 7.7% tall.
    expect(inkAt(first, { x: 5, y: 5, width: 30, height: 7.7 })).toBeGreaterThan(0.03);
    expect(inkAt(first, { x: 60, y: 80, width: 30, height: 7.7 })).toBeGreaterThan(0.03);
    expect(inkAt(first, { x: 40, y: 30, width: 15, height: 40 })).toBe(0);
    expect(inkAt(await renderPage(signed, 1), { x: 0, y: 0, width: 100, height: 100 })).toBe(0);
    const third = await renderPage(signed, 2);
    expect(inkAt(third, { x: 40, y: 40, width: 20, height: 5.2 })).toBeGreaterThan(0.03);
    expect(inkAt(third, { x: 0, y: 0, width: 35, height: 100 })).toBe(0);
  });

  it('places the signature upright at the visible position on a 90°-rotated page', async () => {
    // Portrait media box turned to landscape; an asymmetric signature (dark square at its top-left).
    const original = await makePdf({ pages: 1, size: [595.28, 841.89], rotate: 90 });
    const mark = await makeJpeg({ width: 400, height: 300 });
    const { signed } = await signUpload(original, {
      signature: { mode: 'upload', imageBase64: mark.toString('base64') },
      positions: [{ x: 50, y: 20, page: 0, width: 40 }],
    });
    const page = await renderPage(signed, 0);
    expect(page.width).toBeGreaterThan(page.height);
    // Box: x 50–90%, height 40% * 0.75 * (841.89 / 595.28) = 42.4% of the visible height, from y 20%.
    const box = { x: 50, y: 20, width: 40, height: 42.4 };
    const quarter = (fx: number, fy: number) => ({
      x: box.x + box.width * fx + 1,
      y: box.y + box.height * fy + 1,
      width: box.width * 0.3 - 2,
      height: box.height * 0.3 - 2,
    });
    expect(inkAt(page, quarter(0.05, 0.05))).toBeGreaterThan(0.9);
    expect(inkAt(page, quarter(0.65, 0.65))).toBe(0);
    expect(inkAt(page, quarter(0.65, 0.05))).toBe(0);
    expect(inkAt(page, quarter(0.05, 0.65))).toBe(0);
    expect(inkAt(page, { x: 0, y: 0, width: 45, height: 100 })).toBe(0);
  });

  it('measures positions inside a crop box that does not start at 0,0', async () => {
    const original = await makePdf({ pages: 1, size: [612, 792], cropBox: [100, 150, 400, 500] });
    const { signed } = await signUpload(original, { positions: [{ x: 10, y: 70, page: 0, width: 50 }] });
    expect((await pdfInfo(signed))['Page size']).toContain('400 x 500');
    const page = await renderPage(signed, 0);
    // 50% of 400 pt = 200 pt wide, 66.7 pt tall = 13.3% of 500 pt.
    expect(inkAt(page, { x: 10, y: 70, width: 50, height: 13.3 })).toBeGreaterThan(0.03);
    expect(inkAt(page, { x: 0, y: 0, width: 100, height: 65 })).toBe(0);
  });

  it('moves a box that would cross the page edge back inside the page', async () => {
    const original = await makePdf({ pages: 1, size: [612, 792] });
    const { signed } = await signUpload(original, { positions: [{ x: 90, y: 98, page: 0, width: 40 }] });
    const page = await renderPage(signed, 0);
    // 40% wide and 40 * (1/3) * 612/792 = 10.3% tall: pushed to x 60–100%, y 89.7–100%.
    expect(inkAt(page, { x: 60, y: 89.7, width: 40, height: 10.3 })).toBeGreaterThan(0.03);
    expect(inkAt(page, { x: 0, y: 0, width: 58, height: 100 })).toBe(0);
    expect(inkAt(page, { x: 0, y: 0, width: 100, height: 88 })).toBe(0);
  });

  const typedNames: [string, string][] = [
    ['Latin with accents', 'Zoë Ångström-Núñez'],
    ['Cyrillic', 'Анна Каренина'],
    ['Greek', 'Γιώργος Παπαδόπουλος'],
    ['Chinese', '王小明'],
    ['Arabic', 'محمد عبد الله'],
    ['Hebrew', 'דוד כהן'],
  ];
  for (const [script, name] of typedNames) {
    it(`draws a typed ${script} name with embedded fonts and shows it on the audit page`, async () => {
      const original = await makePdf({ pages: 1, size: [612, 792] });
      const { signed, reply } = await signUpload(original, {
        signature: { mode: 'type', typedName: name, color: '#c00000' },
        positions: [{ x: 20, y: 30, page: 0, width: 50 }],
        signer: { ...signer, name },
      });
      const fonts = await pdfFonts(signed);
      const embedded = fonts.filter((f) => f.embedded);
      expect(embedded.length).toBeGreaterThan(0);
      expect(embedded.every((f) => f.subset && f.type === 'CID TrueType')).toBe(true);
      const page = await renderPage(signed, 0);
      expect(inkAt(page, { x: 20, y: 30, width: 50, height: 20 })).toBeGreaterThan(0.01);
      expect(inkAt(page, { x: 0, y: 55, width: 100, height: 45 })).toBe(0);
      expect((await pdfSig(signed)).stdout).toContain('Signature is Valid.');
      expect(reply.events[1]?.details).toMatchObject({ mode: 'type' });
      // Right-to-left names come out of pdftotext in either order; the letters are what matter.
      const audit = (await pdfText(signed, 1)).replace(/[\s\u200e\u200f\u202a-\u202e]/g, '');
      const letters = name.replace(/\s+/g, '');
      expect(audit.includes(letters) || audit.includes([...letters].reverse().join(''))).toBe(true);
    });
  }

  it('turns a phone photo with EXIF orientation 6 into an upright page', async () => {
    // Upright 300x400 (portrait); stored as 400x300 pixels with orientation 6.
    const photo = await makeJpeg({ width: 300, height: 400, exifOrientation: 6 });
    const { signed, reply } = await signUpload(photo, {
      kind: 'jpeg',
      fileName: 'IMG_0001.JPG',
      positions: [{ x: 60, y: 85, page: 0, width: 30 }],
    });
    expect(reply.signedFileName).toBe('IMG_0001-signed.pdf');
    expect(reply.pageCount).toBe(2);
    expect((await pdfInfo(signed))['Page size']).toContain('300 x 400');
    const page = await renderPage(signed, 0);
    expect(page.height).toBeGreaterThan(page.width);
    // The dark mark is at 5–35% of the upright image: top-left.
    expect(inkAt(page, { x: 8, y: 8, width: 24, height: 24 })).toBeGreaterThan(0.9);
    expect(inkAt(page, { x: 62, y: 8, width: 30, height: 24 })).toBe(0);
    expect(inkAt(page, { x: 8, y: 55, width: 24, height: 24 })).toBe(0);
    expect((await pdfSig(signed)).stdout).toContain('Signature is Valid.');
  });

  it('turns a PNG into one page sized to the image, plus the audit page', async () => {
    const image = await makePng({ width: 800, height: 500, color: '#000000' });
    const { signed, reply } = await signUpload(image, {
      kind: 'png',
      fileName: 'scan.png',
      positions: [{ x: 5, y: 5, page: 0, width: 20 }],
    });
    expect(reply.pageCount).toBe(2);
    expect(reply.signedFileName).toBe('scan-signed.pdf');
    const info = await pdfInfo(signed);
    expect(info.Pages).toBe('2');
    expect(info['Page size']).toContain('800 x 500');
    expect((await qpdfCheck(signed)).ok).toBe(true);
    const page = await renderPage(signed, 0);
    // The PNG's own stroke runs through the middle band.
    expect(inkAt(page, { x: 10, y: 25, width: 80, height: 50 })).toBeGreaterThan(0.02);
  });

  it.each([
    [
      'a PDF that needs a password to open',
      () => makeEncryptedPdf({ userPassword: 'open' }),
      'file: the PDF is password-protected',
    ],
    ['a truncated PDF', makeTruncatedPdf, 'file: the PDF is truncated'],
    ['garbage behind a PDF header', () => Promise.resolve(makeGarbagePdf()), 'file: the PDF is damaged'],
    ['a PNG sent as a PDF', async () => makePng(), 'file: not a PDF'],
  ])('refuses %s as invalid_argument on file, and deletes the upload', async (_, make, message) => {
    const uploadKey = `uploads/${randomUUID()}`;
    const err = await signError(await make(), { uploadKey });
    expect(err.code).toBe('invalid_argument');
    expect(err.field).toBe('file');
    expect(err.message).toContain(message);
    expect(await blob.stat(uploadKey)).toBeUndefined();
  });

  it('refuses an image that is not one, naming the file', async () => {
    const err = await signError(Buffer.from('not a png at all'), { kind: 'png' });
    expect(err).toMatchObject({ code: 'invalid_argument', field: 'file' });
  });

  it('refuses a page beyond the document, naming the position', async () => {
    const err = await signError(await makePdf({ pages: 2 }), {
      positions: [
        { x: 10, y: 10, page: 1, width: 20 },
        { x: 10, y: 10, page: 3, width: 20 },
      ],
    });
    expect(err.code).toBe('invalid_argument');
    expect(err.field).toBe('positions.1.page');
    expect(err.message).toContain('page 3 does not exist (the document has 2 pages)');
  });

  it('refuses a signature image that is not an image', async () => {
    const err = await signError(await makePdf(), {
      signature: { mode: 'draw', imageBase64: Buffer.from('hello').toString('base64') },
    });
    expect(err).toMatchObject({ code: 'invalid_argument', field: 'signatureData' });
  });

  it('refuses an upload key outside uploads/ without touching it', async () => {
    const key = `signed/${accountId}/keep-me.pdf`;
    const err = await signError(await makePdf(), { uploadKey: key });
    expect(err).toMatchObject({ code: 'invalid_argument', field: 'uploadKey' });
    expect(await blob.stat(key)).toBeDefined();
  });

  it('is ready when NATS and the bucket answer', async () => {
    const res = await fetch(`http://127.0.0.1:${service.healthPort}/readyz`);
    expect(res.status).toBe(200);
  });
});

describe('pdf.inspect', () => {
  const inspect = async (bytes: Buffer, uploadKey = `uploads/${randomUUID()}`) => {
    await blob.put(uploadKey, bytes);
    return { uploadKey, answer: client.request(PdfInspect, { uploadKey }) };
  };
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => {
        throw new Error('expected a refusal');
      },
      (err: unknown) => err as ServiceError,
    );

  it('answers the page count and leaves the upload where it is', async () => {
    const { uploadKey, answer } = await inspect(await makePdf({ pages: 3 }));
    expect(await answer).toMatchObject({ pageCount: 3 });
    expect(await blob.stat(uploadKey)).toBeDefined();
    await blob.remove(uploadKey);
  });

  it('refuses what is not a PDF it can sign, naming the file', async () => {
    const err = await refusal((await inspect(makeGarbagePdf())).answer);
    expect(err).toBeInstanceOf(ServiceError);
    expect(err.code).toBe('invalid_argument');
    expect(err.field).toBe('file');
  });

  it('reads uploads only', async () => {
    await blob.put('signed/x/y.pdf', await makePdf({ pages: 1 }));
    const err = await refusal(client.request(PdfInspect, { uploadKey: 'signed/x/y.pdf' }));
    expect(err.code).toBe('invalid_argument');
    expect(err.field).toBe('uploadKey');
  });
});
