import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument } from 'pdf-lib';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '@esign/contracts';
import {
  JPEG_MARK,
  inkAt,
  inkColorAt,
  makeJpeg,
  makeLargePdf,
  makePdf,
  makePng,
  pdfInfo,
  pdfSig,
  pdfText,
  pdfXmp,
  qpdfCheck,
  renderPage,
} from '@esign/testing';
import { createSigner } from '../src/index';
import type { SignInput, Signer } from '../src/index';

const run = promisify(execFile);
let signer: Signer;
let mark: Buffer;

let base: Omit<SignInput, 'bytes' | 'kind'>;

beforeAll(async () => {
  signer = await createSigner({ warn: () => undefined });
  base = {
    fileName: 'doc.pdf',
    signature: { mode: 'draw', imageBase64: (await makePng()).toString('base64') },
    positions: [{ x: 50, y: 85, page: 0, width: 25 }],
    signer: { name: 'Jane Doe', email: 'jane@example.com', ipAddress: '198.51.100.1', userAgent: 'Test/1.0' },
    receivedAt: '2026-11-21T10:00:00.000Z',
  };
  // An asymmetric signature: a dark square at the top-left of a light grey picture.
  mark = await makeJpeg({ width: 400, height: 300 });
});

const signError = async (input: SignInput) => {
  try {
    await signer.sign(input);
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected signing to fail');
};

/** Ink in each corner region (30% of the box) of a box given in percent of the page. */
const corners = (
  page: Awaited<ReturnType<typeof renderPage>>,
  box: { x: number; y: number; width: number; height: number },
) => {
  const at = (fx: number, fy: number) =>
    inkAt(page, {
      x: box.x + box.width * fx + 0.5,
      y: box.y + box.height * fy + 0.5,
      width: box.width * 0.3 - 1,
      height: box.height * 0.3 - 1,
    });
  return {
    topLeft: at(0.05, 0.05),
    topRight: at(0.65, 0.05),
    bottomLeft: at(0.05, 0.65),
    bottomRight: at(0.65, 0.65),
  };
};

describe('createSigner().sign', () => {
  it.each([0, 90, 180, 270] as const)(
    'stamps upright at the visible position on a page with /Rotate %i',
    async (rotate) => {
      const bytes = await makePdf({ size: [500, 700], rotate });
      const result = await signer.sign({
        ...base,
        bytes,
        kind: 'pdf',
        signature: { mode: 'upload', imageBase64: mark.toString('base64') },
        positions: [{ x: 20, y: 30, page: 0, width: 40 }],
      });
      const page = await renderPage(result.bytes, 0);
      const turned = rotate === 90 || rotate === 270;
      const [w, h] = turned ? [700, 500] : [500, 700];
      expect(page.width > page.height).toBe(turned);
      const box = { x: 20, y: 30, width: 40, height: (((40 / 100) * w * 0.75) / h) * 100 };
      const ink = corners(page, box);
      expect(ink.topLeft).toBeGreaterThan(0.9);
      expect([ink.topRight, ink.bottomLeft, ink.bottomRight]).toEqual([0, 0, 0]);
      expect(inkAt(page, { x: 0, y: 0, width: 19, height: 100 })).toBe(0);
    },
  );

  it('combines /Rotate 90 with an offset crop box', async () => {
    const bytes = await makePdf({ size: [612, 792], rotate: 90, cropBox: [50, 100, 400, 600] });
    const result = await signer.sign({
      ...base,
      bytes,
      kind: 'pdf',
      signature: { mode: 'upload', imageBase64: mark.toString('base64') },
      positions: [{ x: 50, y: 10, page: 0, width: 30 }],
    });
    const page = await renderPage(result.bytes, 0);
    // Visible: 600 x 400. Box: 180 x 135 pt -> 30% x 33.75%.
    expect(Math.round((page.width / page.height) * 10) / 10).toBe(1.5);
    const ink = corners(page, { x: 50, y: 10, width: 30, height: 33.75 });
    expect(ink.topLeft).toBeGreaterThan(0.9);
    expect([ink.topRight, ink.bottomLeft, ink.bottomRight]).toEqual([0, 0, 0]);
  });

  it.each([1, 2, 3, 4, 5, 6, 7, 8] as const)(
    'turns a JPEG with EXIF orientation %i upright',
    async (exifOrientation) => {
      const photo = await makeJpeg({ width: 240, height: 320, exifOrientation });
      const result = await signer.sign({
        ...base,
        bytes: photo,
        kind: 'jpeg',
        positions: [{ x: 60, y: 90, page: 0, width: 30 }],
      });
      expect((await pdfInfo(result.bytes))['Page size']).toContain('240 x 320');
      const page = await renderPage(result.bytes, 0);
      const ink = corners(page, { x: 0, y: 0, width: 100, height: 100 });
      expect(inkAt(page, { x: JPEG_MARK.x + 3, y: JPEG_MARK.y + 3, width: 24, height: 24 })).toBeGreaterThan(
        0.9,
      );
      expect([ink.topRight, ink.bottomLeft]).toEqual([0, 0]);
    },
  );

  it.each([
    ['RGB (kept compressed as it is)', (s: sharp.Sharp) => s.png()],
    ['indexed (kept compressed as it is)', (s: sharp.Sharp) => s.png({ palette: true, colours: 4 })],
    ['interlaced (decoded)', (s: sharp.Sharp) => s.png({ progressive: true })],
    ['RGBA with transparency (decoded, with a soft mask)', (s: sharp.Sharp) => s.ensureAlpha(0.5).png()],
  ])('shows a %s PNG page in its colours', async (_, encode) => {
    // Left half red, right half blue.
    const width = 200;
    const height = 100;
    const raw = Buffer.alloc(width * height * 3);
    for (let i = 0; i < width * height; i++)
      raw.set(i % width < width / 2 ? [220, 0, 0] : [0, 0, 220], i * 3);
    const image = await encode(sharp(raw, { raw: { width, height, channels: 3 } })).toBuffer();
    const result = await signer.sign({
      ...base,
      bytes: image,
      kind: 'png',
      positions: [{ x: 0, y: 0, page: 0, width: 10 }],
    });
    expect((await pdfInfo(result.bytes))['Page size']).toContain('200 x 100');
    const page = await renderPage(result.bytes, 0, 72);
    const [lr = 0, , lb = 0] = inkColorAt(page, { x: 10, y: 50, width: 30, height: 40 }, 250) ?? [];
    const [rr = 0, , rb = 0] = inkColorAt(page, { x: 60, y: 50, width: 30, height: 40 }, 250) ?? [];
    expect(lr).toBeGreaterThan(lb + 80);
    expect(rb).toBeGreaterThan(rr + 80);
  });

  it('escapes names that try to break out of PDF strings or XML', async () => {
    const name = 'Eve ) /Subject (pwned) >> <esign:AuditId>FAKE</esign:AuditId> & \\ "\'';
    const email = 'eve@example.com<!--';
    const result = await signer.sign({
      ...base,
      bytes: await makePdf(),
      kind: 'pdf',
      signer: { ...base.signer, name, email },
    });
    expect((await qpdfCheck(result.bytes)).ok).toBe(true);
    const info = await pdfInfo(result.bytes, { custom: true });
    expect(info.SignerName).toBe(name);
    expect(info.SignerEmail).toBe(email);
    expect(info.Subject).toContain(result.auditId);
    const xmp = await pdfXmp(result.bytes);
    expect(xmp.match(/<esign:AuditId>/g)).toHaveLength(1);
    expect(xmp).toContain('&lt;esign:AuditId&gt;FAKE&lt;/esign:AuditId&gt; &amp;');
    expect(xmp).toContain(`<esign:AuditId>${result.auditId}</esign:AuditId>`);
    expect((await pdfText(result.bytes, 1)).replace(/\s+/g, ' ')).toContain(name);
    expect((await pdfSig(result.bytes)).stdout).toContain('Signature is Valid.');
  });

  it('renders a Unicode name on the audit page with embedded fonts, and wraps a long user agent', async () => {
    const userAgent = `Mozilla/5.0 ${'(Long; Segment) '.repeat(30)}End/1`;
    const result = await signer.sign({
      ...base,
      bytes: await makePdf(),
      kind: 'pdf',
      signer: { ...base.signer, name: 'Łukasz Żółć 王小明', userAgent },
    });
    const text = await pdfText(result.bytes, 1);
    expect(text).toContain('Łukasz Żółć 王小明');
    expect(text.replace(/\s+/g, ' ')).toContain('End/1');
    expect((await pdfInfo(result.bytes, { custom: true })).SignerUserAgent).toBe(userAgent);
  });

  it('refuses a typed name whose letters no font can draw, and leaves out emoji', async () => {
    const err = await signError({
      ...base,
      bytes: await makePdf(),
      kind: 'pdf',
      signature: { mode: 'type', typedName: 'ሰላም', color: '#000000' },
    });
    expect(err).toMatchObject({ code: 'invalid_argument', field: 'typedName' });
    expect(err.message).toContain('U+1230');
    const ok = await signer.sign({
      ...base,
      bytes: await makePdf(),
      kind: 'pdf',
      signature: { mode: 'type', typedName: 'Bob 😀', color: '#000000' },
    });
    expect(ok.pageCount).toBe(2);
  });

  it('draws typed Japanese, Korean and Hindi names in their colour', async () => {
    for (const typedName of ['山田 たろう', '김민준', 'अमित शर्मा']) {
      const result = await signer.sign({
        ...base,
        bytes: await makePdf({ size: [600, 800] }),
        kind: 'pdf',
        signature: { mode: 'type', typedName, color: '#00a000' },
        positions: [{ x: 10, y: 10, page: 0, width: 60 }],
      });
      const page = await renderPage(result.bytes, 0);
      const box = { x: 10, y: 10, width: 60, height: 18 };
      expect(inkAt(page, box), typedName).toBeGreaterThan(0.01);
      const [r = 255, g = 0, b = 255] = inkColorAt(page, box) ?? [];
      expect(g, typedName).toBeGreaterThan(r + 40);
      expect(g, typedName).toBeGreaterThan(b + 40);
    }
  });

  it('answers damaged PDFs with invalid_argument on file, never an internal error or a hang', async () => {
    const original = await makePdf({ pages: 3, text: 'fuzz', rotate: 90, cropBox: [10, 10, 300, 300] });
    const whole = Buffer.from(await (await PDFDocument.load(original)).save({ useObjectStreams: false }));
    const tokens = [
      '0',
      '-1',
      '99999999',
      ' R',
      '[',
      ']',
      '<<',
      '>>',
      '/Kids',
      '/Count',
      '/Contents',
      'null',
      '(',
      '1 0 R',
    ];
    let seed = 42;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const outcomes = new Set<string>();
    const started = Date.now();
    for (let i = 0; i < 150; i++) {
      let bytes = whole;
      for (let k = 0; k <= random(4); k++) {
        const at = random(bytes.length - 30);
        const token = Buffer.from(random(2) ? (tokens[random(tokens.length)] ?? '') : '');
        bytes = Buffer.concat([bytes.subarray(0, at), token, bytes.subarray(at + random(12))]);
      }
      try {
        await signer.sign({ ...base, bytes, kind: 'pdf' });
        outcomes.add('signed');
      } catch (err) {
        expect(err).toBeInstanceOf(ServiceError);
        expect(err).toMatchObject({ code: 'invalid_argument', field: 'file' });
        outcomes.add('refused');
      }
    }
    expect(outcomes).toEqual(new Set(['signed', 'refused']));
    expect(Date.now() - started).toBeLessThan(20_000);
  });

  it('seals a ~20 MB PDF: whole file signed, hashes match the bytes', async () => {
    const bytes = await makeLargePdf(20 * 1024 * 1024);
    const result = await signer.sign({ ...base, bytes, kind: 'pdf', fileName: 'big.pdf' });
    expect(result.pageCount).toBe(21);
    expect(result.fileHash).toBe(`sha256:${createHash('sha256').update(result.bytes).digest('hex')}`);
    expect(result.originalHash).toBe(`sha256:${createHash('sha256').update(bytes).digest('hex')}`);
    const sig = await pdfSig(result.bytes);
    expect(sig.stdout).toContain('Signature is Valid.');
    expect(sig.stdout).toContain('Total document signed');
    expect((await qpdfCheck(result.bytes)).ok).toBe(true);
  });

  it('seals with a configured RSA key and certificate chain from PEM', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'esign-key-'));
    try {
      await run('openssl', [
        'req',
        '-x509',
        '-newkey',
        'rsa:3072',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '30',
        '-subj',
        '/CN=Acme Signing/O=Acme',
      ]);
      const configured = await createSigner({
        signing: {
          keyPem: await readFile(join(dir, 'key.pem'), 'utf8'),
          certPem: await readFile(join(dir, 'cert.pem'), 'utf8'),
        },
      });
      expect(configured.developmentCertificate).toBe(false);
      const result = await configured.sign({ ...base, bytes: await makePdf(), kind: 'pdf' });
      const sig = await pdfSig(result.bytes);
      expect(sig.stdout).toContain('Signer Certificate Common Name: Acme Signing');
      expect(sig.stdout).toContain('Signature is Valid.');
      expect(result.events[2]?.details.certificateSha256).toBe(configured.certificateFingerprint);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
