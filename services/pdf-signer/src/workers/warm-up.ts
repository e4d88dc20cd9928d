import { crc32, deflateSync } from 'node:zlib';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { SignInput, Signer } from '../domain/assemble-signer';
import type { SignWarmUp, WarmedUp } from './warm-up-plan';

const chunk = (type: string, data: Buffer): Buffer => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
};

const paeth = (left: number, up: number, upLeft: number): number => {
  const p = left + up - upLeft;
  const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
  return pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
};

/**
 * A drawn signature as the signing page sends one: a 300x100 RGBA PNG, transparent but for a wavy
 * stroke, its rows filtered each of the five ways in turn (as encoders choose per row), so that
 * decoding, the alpha mask and the image's compression run as they do for a real one.
 */
export const warmUpSignaturePng = (width = 300, height = 100): Buffer => {
  const stride = width * 4;
  const raw = Buffer.alloc(stride * height);
  for (let x = Math.round(width * 0.1); x < Math.round(width * 0.9); x++) {
    const centre = height / 2 + Math.sin((x / width) * 4 * Math.PI) * height * 0.2;
    for (let y = Math.max(0, Math.round(centre - 3)); y < Math.min(height, Math.round(centre + 3)); y++) {
      raw.set([0x1e, 0x3a, 0x8a, 0xff], y * stride + x * 4);
    }
  }
  const filtered = Buffer.alloc((stride + 1) * height);
  for (let y = 0; y < height; y++) {
    const filter = y % 5;
    filtered[y * (stride + 1)] = filter;
    for (let i = 0; i < stride; i++) {
      const at = (dy: number, di: number) =>
        y + dy < 0 || i + di < 0 ? 0 : (raw[(y + dy) * stride + i + di] ?? 0);
      const [value, left, up, upLeft] = [at(0, 0), at(0, -4), at(-1, 0), at(-1, -4)];
      const predicted = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)][filter] ?? 0;
      filtered[y * (stride + 1) + 1 + i] = (value - predicted) & 0xff;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8 bits per channel, RGBA, deflate, adaptive filtering, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(filtered)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
};

/** A one-page A4 document with a few lines of text, as an uploaded contract would have. */
const warmUpDocument = async (): Promise<Buffer> => {
  const doc = await PDFDocument.create();
  const font = await doc.embedFont(StandardFonts.Helvetica);
  const page = doc.addPage([595.28, 841.89]);
  for (let line = 0; line < 20; line++) {
    page.drawText(`Clause ${line + 1}. The parties agree to the terms set out in this agreement.`, {
      x: 50,
      y: 780 - line * 18,
      size: 11,
      font,
    });
  }
  return Buffer.from(await doc.save());
};

/**
 * Sign synthetic documents with this worker's signer until the budget is spent (at most `maxSignings`),
 * so that V8 has optimised the signing code (parsing, stamping a drawn and a typed signature, the audit
 * page and its QR code, serialising, the CMS signature, the DSS) before the first request. Offline: no
 * TSA is asked (`SignHooks.offline`), and the signed bytes go nowhere (nothing is stored or sent).
 */
export const warmUpSigner = async (
  signer: Signer,
  plan: SignWarmUp,
  /** Run with each signing (the main thread's own part of a request), awaited with it. */
  alongside?: (input: SignInput) => Promise<void>,
): Promise<WarmedUp> => {
  const started = performance.now();
  if (plan.budgetMs <= 0 || plan.maxSignings <= 0) return { ms: 0, signings: 0 };
  const document = await warmUpDocument();
  const drawn = warmUpSignaturePng().toString('base64');
  const input = (n: number): SignInput => ({
    bytes: Buffer.from(document),
    kind: 'pdf',
    fileName: 'warm-up.pdf',
    // Both kinds of stamp, one after the other: a drawn image and a typed name.
    signature:
      n % 2 === 0
        ? { mode: 'draw', imageBase64: drawn }
        : { mode: 'type', typedName: 'Warm Up', color: '#1e3a8a' },
    positions: [{ x: 50, y: 85, page: 0, width: 25 }],
    signer: { name: 'Warm Up', email: 'warm-up@localhost', ipAddress: '127.0.0.1', userAgent: 'warm-up' },
    receivedAt: new Date().toISOString(),
    ...(plan.padesLevel ? { padesLevel: plan.padesLevel } : {}),
    ...(plan.verifyBaseUrl ? { verifyBaseUrl: plan.verifyBaseUrl } : {}),
  });
  let signings = 0;
  do {
    const next = input(signings);
    await Promise.all([alongside?.(next), signer.sign(next, { offline: true })]);
    signings += 1;
  } while (signings < plan.maxSignings && performance.now() - started < plan.budgetMs);
  return { ms: Math.round(performance.now() - started), signings };
};
