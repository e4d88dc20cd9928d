import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { makePng } from '@esign/testing';
import { describe, expect, it } from 'vitest';
import { decodePng, readPng } from './decode-png';

/** What the signer got from sharp before this decoder: colour without alpha, and the alpha channel. */
const decodeWithSharp = async (bytes: Buffer) => {
  const meta = await sharp(bytes).metadata();
  const space = (meta.channels ?? 3) <= 2 ? 'b-w' : 'srgb';
  const color = await sharp(bytes).removeAlpha().toColourspace(space).raw({ depth: 'uchar' }).toBuffer();
  const alpha = meta.hasAlpha
    ? await sharp(bytes).extractChannel('alpha').raw({ depth: 'uchar' }).toBuffer()
    : undefined;
  return { color, alpha, colorChannels: space === 'b-w' ? 1 : 3 };
};

const decodeHere = (bytes: Buffer) => {
  const png = readPng(bytes, { checkIdat: true });
  return png && decodePng(png);
};

const chunk = (type: string, data: Buffer) => {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
};

const paeth = (a: number, b: number, c: number) => {
  const p = a + b - c;
  const [pa, pb, pc] = [Math.abs(p - a), Math.abs(p - b), Math.abs(p - c)];
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
};

/**
 * A PNG written here, so that every row filter (None, Sub, Up, Average, Paeth, by turns) and the
 * variants sharp does not write (grey below 8 bits, tRNS colour keys) are covered.
 */
const encodePng = (options: {
  width: number;
  height: number;
  colorType: number;
  bitDepth: number;
  /** Unfiltered rows, packed as the PNG stores them. */
  rows: Buffer[];
  palette?: Buffer;
  transparency?: Buffer;
  idatChunks?: number;
  /** Ancillary chunks written before the image data. */
  extra?: Buffer[];
}) => {
  const channels = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 }[options.colorType] ?? 1;
  const bpp = Math.max(1, (channels * options.bitDepth) >> 3);
  const filtered = options.rows.map((row, y) => {
    const prior = options.rows[y - 1] ?? Buffer.alloc(row.length);
    const filter = y % 5;
    const out = Buffer.alloc(row.length + 1);
    out[0] = filter;
    for (let i = 0; i < row.length; i++) {
      const left = i >= bpp ? (row[i - bpp] ?? 0) : 0;
      const up = prior[i] ?? 0;
      const upLeft = i >= bpp ? (prior[i - bpp] ?? 0) : 0;
      const predictor = [0, left, up, (left + up) >> 1, paeth(left, up, upLeft)][filter] ?? 0;
      out[i + 1] = ((row[i] ?? 0) - predictor) & 255;
    }
    return out;
  });
  const header = Buffer.alloc(13);
  header.writeUInt32BE(options.width, 0);
  header.writeUInt32BE(options.height, 4);
  header[8] = options.bitDepth;
  header[9] = options.colorType;
  const zlib = deflateSync(Buffer.concat(filtered));
  const parts = options.idatChunks ?? 1;
  const step = Math.ceil(zlib.length / parts);
  const idat = Array.from({ length: parts }, (_, i) =>
    chunk('IDAT', zlib.subarray(i * step, (i + 1) * step)),
  );
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    ...(options.palette ? [chunk('PLTE', options.palette)] : []),
    ...(options.transparency ? [chunk('tRNS', options.transparency)] : []),
    ...(options.extra ?? []),
    ...idat,
    chunk('IEND', Buffer.alloc(0)),
  ]);
};

/** Rows of pseudo-random samples (deterministic), `bits` bits each, packed. */
const randomRows = (width: number, height: number, samplesPerPixel: number, bits: number, seed = 7) => {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) & 0x7fffffff);
  return Array.from({ length: height }, () => {
    const row = Buffer.alloc(Math.ceil((width * samplesPerPixel * bits) / 8));
    for (let s = 0; s < width * samplesPerPixel; s++) {
      const value = (next() >> 8) & ((1 << bits) - 1);
      const bit = s * bits;
      row[bit >> 3] = (row[bit >> 3] ?? 0) | (value << (8 - bits - (bit & 7)));
    }
    return row;
  });
};

const expectSameAsSharp = async (bytes: Buffer) => {
  const ours = decodeHere(bytes);
  expect(ours).toBeDefined();
  const theirs = await decodeWithSharp(bytes);
  expect(ours?.colorChannels).toBe(theirs.colorChannels);
  expect(ours?.color.equals(theirs.color)).toBe(true);
  expect(ours?.alpha?.length).toBe(theirs.alpha?.length);
  if (theirs.alpha) expect(ours?.alpha?.equals(theirs.alpha)).toBe(true);
};

// A gradient with a translucent band: every pixel differs, so a wrong filter or channel shows.
const gradient = (width: number, height: number, channels: 1 | 2 | 3 | 4) => {
  const raw = Buffer.alloc(width * height * channels);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * channels;
      const values = [(x * 7 + y) & 255, (y * 5) & 255, (x * y) & 255, x < width / 2 ? 255 : (x * 3) & 255];
      const picked = channels === 1 ? [values[0]] : channels === 2 ? [values[0], values[3]] : values;
      picked.slice(0, channels).forEach((v, i) => (raw[at + i] = v ?? 0));
    }
  return sharp(raw, { raw: { width, height, channels } });
};

describe('decodePng', () => {
  it.each([
    ['a drawn signature (RGBA, makePng)', () => makePng({ width: 300, height: 100 })],
    ['RGBA', () => gradient(61, 37, 4).png().toBuffer()],
    ['RGBA, adaptive filtering', () => gradient(61, 37, 4).png({ adaptiveFiltering: true }).toBuffer()],
    ['RGB', () => gradient(61, 37, 3).png({ adaptiveFiltering: true }).toBuffer()],
    ['grey', () => gradient(61, 37, 1).png({ adaptiveFiltering: true }).toBuffer()],
    ['grey + alpha', () => gradient(61, 37, 2).png({ adaptiveFiltering: true }).toBuffer()],
    ['palette', () => gradient(61, 37, 3).png({ palette: true, colours: 200 }).toBuffer()],
    ['palette with tRNS', () => gradient(61, 37, 4).png({ palette: true, colours: 64 }).toBuffer()],
    ['4-bit palette', () => gradient(61, 37, 3).png({ palette: true, colours: 16 }).toBuffer()],
    ['2-bit palette', () => gradient(61, 37, 3).png({ palette: true, colours: 4 }).toBuffer()],
    ['1-bit palette', () => gradient(61, 37, 3).png({ palette: true, colours: 2 }).toBuffer()],
  ])('decodes %s PNGs pixel for pixel as sharp does', async (_, make) => {
    await expectSameAsSharp(await make());
  });

  it('reads the bit depth sharp chose for small palettes', async () => {
    for (const [colours, bits] of [
      [16, 4],
      [4, 2],
      [2, 1],
    ] as const) {
      const bytes = await gradient(61, 37, 3).png({ palette: true, colours }).toBuffer();
      expect(readPng(bytes, { checkIdat: true })?.bitDepth).toBe(bits);
    }
  });

  it.each([
    ['RGBA', 6, 8, 4, 255],
    ['RGBA, few levels', 6, 8, 4, 3],
    ['RGB', 2, 8, 3, 255],
    ['RGB, few levels', 2, 8, 3, 3],
    ['grey + alpha', 4, 8, 2, 255],
    ['8-bit grey', 0, 8, 1, 255],
    ['4-bit grey', 0, 4, 1, 255],
    ['2-bit grey', 0, 2, 1, 255],
    ['1-bit grey', 0, 1, 1, 255],
  ])('undoes every row filter in %s PNGs', async (_, colorType, bitDepth, channels, levels) => {
    const [width, height] = [47, 25];
    // Few levels make ties in the Paeth predictor common, where the order of its tests matters.
    const rows = randomRows(width, height, channels, bitDepth).map((row) =>
      Buffer.from(row.map((v) => v & levels)),
    );
    const bytes = encodePng({ width, height, colorType, bitDepth, rows, idatChunks: 3 });
    await expectSameAsSharp(bytes);
  });

  it('turns tRNS colour keys into alpha (RGB and grey) and palette tRNS into alpha', async () => {
    const [width, height] = [9, 4];
    const rgbRows = randomRows(width, height, 3, 8);
    rgbRows[1]?.set([10, 20, 30], 3);
    const rgb = encodePng({
      width,
      height,
      colorType: 2,
      bitDepth: 8,
      rows: rgbRows,
      transparency: Buffer.from([0, 10, 0, 20, 0, 30]),
    });
    await expectSameAsSharp(rgb);
    expect(decodeHere(rgb)?.alpha?.[width + 1]).toBe(0);

    const greyRows = randomRows(width, height, 1, 4);
    const grey = encodePng({
      width,
      height,
      colorType: 0,
      bitDepth: 4,
      rows: greyRows,
      transparency: Buffer.from([0, (greyRows[0]?.[0] ?? 0) >> 4]),
    });
    await expectSameAsSharp(grey);
    expect(decodeHere(grey)?.alpha?.[0]).toBe(0);

    const palette = encodePng({
      width,
      height,
      colorType: 3,
      bitDepth: 2,
      rows: randomRows(width, height, 1, 2),
      palette: Buffer.from([255, 0, 0, 0, 255, 0, 0, 0, 255, 9, 9, 9]),
      transparency: Buffer.from([0, 128]),
    });
    await expectSameAsSharp(palette);
  });

  it('ignores gamma, chromaticity, sRGB and text chunks, as sharp does', async () => {
    const [width, height] = [31, 9];
    const gamma = Buffer.alloc(4);
    gamma.writeUInt32BE(30000);
    const bytes = encodePng({
      width,
      height,
      colorType: 6,
      bitDepth: 8,
      rows: randomRows(width, height, 4, 8),
      extra: [
        chunk('gAMA', gamma),
        chunk('cHRM', Buffer.alloc(32, 7)),
        chunk('sRGB', Buffer.from([0])),
        chunk('tEXt', Buffer.from('Comment\0drawn', 'latin1')),
      ],
    });
    await expectSameAsSharp(bytes);
  });

  it('leaves interlaced and 16-bit PNGs to sharp', async () => {
    const interlaced = await gradient(20, 20, 4).png({ progressive: true }).toBuffer();
    expect(readPng(interlaced, { checkIdat: true })?.interlaced).toBe(true);
    expect(decodeHere(interlaced)).toBeUndefined();
    const deep = await gradient(20, 20, 4).toColourspace('rgb16').png().toBuffer();
    expect(readPng(deep, { checkIdat: true })?.bitDepth).toBe(16);
    expect(decodeHere(deep)).toBeUndefined();
  });

  it('refuses damaged files: bad CRC, truncated, bad zlib data, an index outside the palette', async () => {
    const good = await makePng({ width: 120, height: 40 });
    expect(decodeHere(good)).toBeDefined();
    const idatAt = good.indexOf('IDAT', 0, 'latin1');
    const flipped = Buffer.from(good);
    flipped[idatAt + 20] = (flipped[idatAt + 20] ?? 0) ^ 0xff;
    expect(readPng(flipped, { checkIdat: true })).toBeUndefined();
    expect(readPng(flipped, { checkIdat: false })).toBeDefined();
    expect(readPng(good.subarray(0, good.length - 20), { checkIdat: true })).toBeUndefined();
    expect(
      readPng(Buffer.from('not a png at all, not a png at all, not a png'), { checkIdat: true }),
    ).toBeUndefined();

    const garbage = encodePng({
      width: 4,
      height: 4,
      colorType: 6,
      bitDepth: 8,
      rows: randomRows(4, 4, 4, 8),
    });
    const garbageIdat = garbage.indexOf('IDAT', 0, 'latin1');
    const broken = Buffer.from(garbage);
    broken.fill(0xab, garbageIdat + 4, garbageIdat + 10);
    const recrc = Buffer.concat([
      broken.subarray(0, garbageIdat - 4),
      chunk('IDAT', broken.subarray(garbageIdat + 4, garbageIdat + 4 + broken.readUInt32BE(garbageIdat - 4))),
      chunk('IEND', Buffer.alloc(0)),
    ]);
    const parsed = readPng(recrc, { checkIdat: true });
    expect(parsed).toBeDefined();
    expect(parsed && decodePng(parsed)).toBeUndefined();

    const outside = encodePng({
      width: 2,
      height: 1,
      colorType: 3,
      bitDepth: 8,
      rows: [Buffer.from([0, 5])],
      palette: Buffer.from([1, 2, 3]),
    });
    const outsideParsed = readPng(outside, { checkIdat: true });
    expect(outsideParsed && decodePng(outsideParsed)).toBeUndefined();
  });
});
