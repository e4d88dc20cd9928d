import { crc32, deflateSync, inflateSync } from 'node:zlib';
import { PDFDocument, PDFName, PDFRawStream, PDFRef } from 'pdf-lib';
import sharp from 'sharp';
import { makePng } from '@esign/testing';
import { describe, expect, it } from 'vitest';
import { embedImage, UnreadableImageError } from './embed-image';

const rawStream = (doc: PDFDocument, ref: PDFRef): PDFRawStream => {
  const object = doc.context.lookup(ref);
  if (!(object instanceof PDFRawStream)) throw new Error(`${ref.toString()} is not a stream`);
  return object;
};

const embed = async (bytes: Buffer, maxPixels = 25_000_000) => {
  const doc = await PDFDocument.create();
  const image = await embedImage(doc.context, bytes, { maxPixels });
  const stream = rawStream(doc, image.ref);
  const entry = (key: string) => stream.dict.get(PDFName.of(key));
  const smaskRef = entry('SMask');
  const smask = smaskRef instanceof PDFRef ? rawStream(doc, smaskRef) : undefined;
  return { image, stream, entry, smask };
};

const rgba = (width: number, height: number, alpha: (x: number) => number) => {
  const raw = Buffer.alloc(width * height * 4);
  for (let i = 0; i < width * height; i++) raw.set([200, 30, (i * 7) & 255, alpha(i % width)], i * 4);
  return sharp(raw, { raw: { width, height, channels: 4 } });
};

describe('embedImage', () => {
  it('stores a drawn signature as deflated RGB with a soft mask, pixel for pixel as sharp decodes it', async () => {
    const png = await makePng({ width: 300, height: 100 });
    const { image, stream, entry, smask } = await embed(png);
    expect([image.displayWidth, image.displayHeight, image.orientation]).toEqual([300, 100, 1]);
    expect(entry('ColorSpace')?.toString()).toBe('/DeviceRGB');
    expect(entry('Filter')?.toString()).toBe('/FlateDecode');
    expect(smask).toBeDefined();
    const color = await sharp(png).removeAlpha().raw().toBuffer();
    const alpha = await sharp(png).extractChannel('alpha').raw().toBuffer();
    expect(inflateSync(stream.getContents()).equals(color)).toBe(true);
    expect(inflateSync(smask?.getContents() ?? Buffer.alloc(0)).equals(alpha)).toBe(true);
  });

  it('drops the soft mask of an RGBA image that is opaque everywhere', async () => {
    const { smask, entry } = await embed(
      await rgba(40, 30, () => 255)
        .png()
        .toBuffer(),
    );
    expect(smask).toBeUndefined();
    expect(entry('DecodeParms')).toBeUndefined();
  });

  it('keeps the zlib data of an opaque RGB PNG (PNG predictors)', async () => {
    const png = await sharp(Buffer.alloc(50 * 20 * 3, 90), { raw: { width: 50, height: 20, channels: 3 } })
      .png()
      .toBuffer();
    const { entry } = await embed(png);
    expect(entry('DecodeParms')?.toString()).toContain('/Predictor 15');
  });

  it('draws an RGB PNG that carries a suggested palette in RGB, not through the palette', async () => {
    const png = await sharp(Buffer.alloc(8 * 4 * 3, 90), { raw: { width: 8, height: 4, channels: 3 } })
      .png()
      .toBuffer();
    const plte = Buffer.concat([Buffer.from('PLTE', 'latin1'), Buffer.from([1, 2, 3])]);
    const chunk = Buffer.alloc(plte.length + 8);
    chunk.writeUInt32BE(3, 0);
    plte.copy(chunk, 4);
    chunk.writeUInt32BE(crc32(plte), plte.length + 4);
    const withPalette = Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)]);
    const { entry } = await embed(withPalette);
    expect(entry('ColorSpace')?.toString()).toBe('/DeviceRGB');
    expect(entry('DecodeParms')?.toString()).toContain('/Colors 3');
  });

  it('leaves a PNG with an EXIF orientation to sharp, which turns it upright', async () => {
    const png = await rgba(40, 20, (x) => (x < 20 ? 255 : 60))
      .withMetadata({ orientation: 6 })
      .png()
      .toBuffer();
    const { image, smask } = await embed(png);
    expect([image.displayWidth, image.displayHeight]).toEqual([20, 40]);
    expect(smask).toBeDefined();
  });

  it('refuses an image above the pixel limit, and damaged pixel data, with the messages sharp gave', async () => {
    const png = await makePng({ width: 300, height: 100 });
    await expect(embed(png, 20_000)).rejects.toThrow('the image is too large (300x100 pixels)');

    // Scanlines with an unknown filter type, in a file whose chunks are otherwise sound.
    const header = png.subarray(0, 33);
    const rows = Buffer.alloc(100 * (300 * 4 + 1), 9);
    const data = Buffer.concat([Buffer.from('IDAT', 'latin1'), deflateSync(rows)]);
    const idat = Buffer.alloc(data.length + 8);
    idat.writeUInt32BE(data.length - 4, 0);
    data.copy(idat, 4);
    idat.writeUInt32BE(crc32(data), data.length + 4);
    const iend = png.subarray(png.length - 12);
    const damaged = Buffer.concat([header, idat, iend]);
    const err = await embed(damaged).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnreadableImageError);
    expect((err as Error).message).toBe('the image data is damaged or incomplete');
  });
});
