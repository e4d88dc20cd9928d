import { crc32, inflateSync } from 'node:zlib';

/** The parts of a PNG file that the signer uses, read without decoding any pixels. */
export interface PngFile {
  readonly width: number;
  readonly height: number;
  /** 1, 2, 4, 8 or 16. */
  readonly bitDepth: number;
  /** 0 grey, 2 RGB, 3 indexed, 4 grey + alpha, 6 RGBA. */
  readonly colorType: number;
  readonly interlaced: boolean;
  /** PLTE: RGB triplets. */
  readonly palette?: Buffer;
  /** tRNS: alpha per palette entry, or the transparent grey / RGB sample (16-bit big-endian values). */
  readonly transparency?: Buffer;
  /** An ICC profile (iCCP) or EXIF data (eXIf): colour management and orientation are sharp's job. */
  readonly iccProfile: boolean;
  readonly exif: boolean;
  /** The IDAT chunks: one zlib stream, split. */
  readonly idat: readonly Buffer[];
}

/** Decoded 8-bit samples, colour and alpha apart (how PDF wants them: an image and its /SMask). */
export interface DecodedPng {
  readonly width: number;
  readonly height: number;
  /** 1 (grey) or 3 (RGB) bytes per pixel, rows top to bottom. */
  readonly colorChannels: 1 | 3;
  readonly color: Buffer;
  /** One byte per pixel, when the image has an alpha channel or a tRNS chunk. */
  readonly alpha?: Buffer;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Allowed bit depths per colour type, from the PNG specification. */
const BIT_DEPTHS: Readonly<Record<number, readonly number[]>> = {
  0: [1, 2, 4, 8, 16],
  2: [8, 16],
  3: [1, 2, 4, 8],
  4: [8, 16],
  6: [8, 16],
};

const CHANNELS: Readonly<Record<number, number>> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** Chunk types are four ASCII letters; bit 5 of the first one clear means "critical". */
const isCritical = (bytes: Buffer, at: number): boolean => ((bytes[at] ?? 0) & 0x20) === 0;

/**
 * Read a PNG's chunk structure: header, palette, transparency and the IDAT chunks (not inflated).
 * Undefined for anything not a clean PNG: a bad signature, header or chunk CRC, a chunk running past
 * the end, no IEND, an unknown critical chunk. `checkIdat` also verifies the IDAT chunks' CRCs (cheap
 * for a drawn signature, not worth it for a 20 MB scan whose zlib data is copied as it is). Callers
 * leave such files to sharp, which reads more variants and words its errors.
 */
export const readPng = (bytes: Buffer, options: { checkIdat: boolean }): PngFile | undefined => {
  if (bytes.length < 8 + 25 + 12 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  let header: Pick<PngFile, 'width' | 'height' | 'bitDepth' | 'colorType' | 'interlaced'> | undefined;
  let palette: Buffer | undefined;
  let transparency: Buffer | undefined;
  let iccProfile = false;
  let exif = false;
  let ended = false;
  const idat: Buffer[] = [];
  for (let at = 8; at + 12 <= bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const end = at + 12 + length;
    if (length > 0x7fffffff || end > bytes.length) return undefined;
    const type = bytes.toString('latin1', at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (
      (type !== 'IDAT' || options.checkIdat) &&
      crc32(bytes.subarray(at + 4, at + 8 + length)) !== bytes.readUInt32BE(at + 8 + length)
    )
      return undefined;
    if (!header && type !== 'IHDR') return undefined;
    if (type === 'IHDR') {
      if (header || length !== 13) return undefined;
      const [bitDepth = 0, colorType = 0, compression, filter, interlace] = data.subarray(8);
      if (!BIT_DEPTHS[colorType]?.includes(bitDepth)) return undefined;
      if (compression !== 0 || filter !== 0 || (interlace !== 0 && interlace !== 1)) return undefined;
      header = {
        width: data.readUInt32BE(0),
        height: data.readUInt32BE(4),
        bitDepth,
        colorType,
        interlaced: interlace === 1,
      };
      if (header.width === 0 || header.height === 0) return undefined;
    } else if (type === 'PLTE') {
      if (length === 0 || length % 3 !== 0 || length > 768) return undefined;
      palette = data;
    } else if (type === 'tRNS') {
      transparency = data;
    } else if (type === 'iCCP') {
      iccProfile = true;
    } else if (type === 'eXIf') {
      exif = true;
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      ended = true;
      break;
    } else if (isCritical(bytes, at + 4)) {
      return undefined;
    }
    at = end;
  }
  if (!header || !ended || idat.length === 0) return undefined;
  if (header.colorType === 3 && !palette) return undefined;
  return { ...header, palette, transparency, iccProfile, exif, idat };
};

const paeth = (a: number, b: number, c: number): number => {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
};

/** Undo the PNG row filters in place; false when a row names an unknown filter. */
const unfilter = (data: Buffer, height: number, rowBytes: number, bpp: number): boolean => {
  const stride = rowBytes + 1;
  for (let y = 0; y < height; y++) {
    const row = y * stride + 1;
    const prior = row - stride;
    const filter = data[row - 1];
    if (filter === 0) continue;
    if (filter === 1) {
      for (let i = bpp; i < rowBytes; i++)
        data[row + i] = ((data[row + i] ?? 0) + (data[row + i - bpp] ?? 0)) & 255;
    } else if (filter === 2) {
      if (y === 0) continue;
      for (let i = 0; i < rowBytes; i++)
        data[row + i] = ((data[row + i] ?? 0) + (data[prior + i] ?? 0)) & 255;
    } else if (filter === 3) {
      for (let i = 0; i < rowBytes; i++) {
        const left = i >= bpp ? (data[row + i - bpp] ?? 0) : 0;
        const up = y > 0 ? (data[prior + i] ?? 0) : 0;
        data[row + i] = ((data[row + i] ?? 0) + ((left + up) >> 1)) & 255;
      }
    } else if (filter === 4) {
      for (let i = 0; i < rowBytes; i++) {
        const left = i >= bpp ? (data[row + i - bpp] ?? 0) : 0;
        const up = y > 0 ? (data[prior + i] ?? 0) : 0;
        const upLeft = i >= bpp && y > 0 ? (data[prior + i - bpp] ?? 0) : 0;
        data[row + i] = ((data[row + i] ?? 0) + paeth(left, up, upLeft)) & 255;
      }
    } else {
      return false;
    }
  }
  return true;
};

/**
 * Split unfiltered 8-bit RGBA rows into RGB and alpha, four pixels (four 32-bit words) at a time:
 * a drawn signature's common case, where byte-by-byte copying was most of the decoding time. The
 * rows are first packed together (dropping the filter bytes) into a word-aligned buffer. Buffers come
 * from `allocUnsafe` (no zero-filling: every byte is written). Undefined on a big-endian machine.
 */
const splitRgba = (
  data: Buffer,
  width: number,
  height: number,
): { color: Buffer; alpha: Buffer } | undefined => {
  if (!LITTLE_ENDIAN) return undefined;
  const pixels = width * height;
  const groups = Math.ceil(pixels / 4);
  const rowBytes = width * 4;
  // Whole groups of four pixels everywhere, so that the tail needs no special case.
  const packed = wordsOf(groups * 16);
  for (let y = 0; y < height; y++) {
    const row = y * (rowBytes + 1) + 1;
    // Buffer#copy takes offsets: no view object per row.
    data.copy(packed.bytes, y * rowBytes, row, row + rowBytes);
  }
  const color = wordsOf(groups * 12);
  const alpha = wordsOf(groups * 4);
  const input = packed.words;
  const rgb = color.words;
  const a = alpha.words;
  for (let g = 0, i = 0, o = 0; g < groups; g++, i += 4, o += 3) {
    const w0 = input[i] ?? 0;
    const w1 = input[i + 1] ?? 0;
    const w2 = input[i + 2] ?? 0;
    const w3 = input[i + 3] ?? 0;
    // Little-endian words: R in the low byte, A in the high byte.
    rgb[o] = (w0 & 0xffffff) | (w1 << 24);
    rgb[o + 1] = ((w1 >>> 8) & 0xffff) | (w2 << 16);
    rgb[o + 2] = ((w2 >>> 16) & 0xff) | (w3 << 8);
    a[g] = (w0 >>> 24) | ((w1 >>> 24) << 8) | ((w2 >>> 24) << 16) | (w3 & 0xff000000);
  }
  return { color: color.bytes.subarray(0, pixels * 3), alpha: alpha.bytes.subarray(0, pixels) };
};

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/** An uninitialised buffer of `size` bytes (a multiple of 4) and a 32-bit view of it. */
const wordsOf = (size: number): { bytes: Buffer; words: Uint32Array } => {
  let bytes = Buffer.allocUnsafe(size);
  // Small sizes come from Node's shared pool, possibly at an offset that is not word-aligned.
  if (bytes.byteOffset % 4 !== 0) bytes = Buffer.from(new ArrayBuffer(size));
  return { bytes, words: new Uint32Array(bytes.buffer, bytes.byteOffset, size / 4) };
};

/**
 * Decode a non-interlaced PNG of at most 8 bits per sample, in JavaScript with node:zlib: for a drawn
 * signature of a few hundred thousand pixels this costs a fraction of what a sharp pipeline does (its
 * fixed cost per call, plus libvips threads). Samples below 8 bits are scaled to 0–255, palettes
 * expanded to RGB, tRNS turned into an alpha channel, as libvips does. Undefined for what it does not
 * handle (16-bit, interlaced) or for damaged pixel data: the caller then asks sharp.
 */
export const decodePng = (png: PngFile): DecodedPng | undefined => {
  const { width, height, bitDepth, colorType, palette, transparency } = png;
  if (png.interlaced || bitDepth > 8) return undefined;
  const samples = CHANNELS[colorType] ?? 0;
  const rowBytes = Math.ceil((width * samples * bitDepth) / 8);
  const bpp = Math.max(1, (samples * bitDepth) >> 3);
  const expected = height * (rowBytes + 1);
  let data: Buffer;
  try {
    data = inflateSync(png.idat.length === 1 ? (png.idat[0] ?? Buffer.alloc(0)) : Buffer.concat(png.idat), {
      maxOutputLength: expected + 1024,
      // One output buffer: zlib's default 16 KiB chunks, joined afterwards, cost more than inflating.
      chunkSize: Math.max(64, expected + 1024),
    });
  } catch {
    return undefined;
  }
  if (data.length < expected || !unfilter(data, height, rowBytes, bpp)) return undefined;

  const pixels = width * height;
  if (colorType === 6) {
    const split = splitRgba(data, width, height);
    if (split) return { width, height, colorChannels: 3, ...split };
  }
  const grey = colorType === 0 || colorType === 4;
  const colorChannels = grey ? 1 : 3;
  const color = Buffer.allocUnsafe(pixels * colorChannels);
  const hasAlpha = colorType === 4 || colorType === 6 || transparency !== undefined;
  const alpha = hasAlpha ? Buffer.allocUnsafe(pixels) : undefined;

  if (colorType === 6 || colorType === 4) {
    const stride = samples;
    for (let y = 0, p = 0; y < height; y++) {
      let at = y * (rowBytes + 1) + 1;
      for (let x = 0; x < width; x++, p++, at += stride) {
        if (grey) {
          color[p] = data[at] ?? 0;
        } else {
          const c = p * 3;
          color[c] = data[at] ?? 0;
          color[c + 1] = data[at + 1] ?? 0;
          color[c + 2] = data[at + 2] ?? 0;
        }
        if (alpha) alpha[p] = data[at + stride - 1] ?? 0;
      }
    }
    return { width, height, colorChannels, color, alpha };
  }

  if (colorType === 2) {
    // tRNS for RGB: one 16-bit sample per channel; at 8 bits only the low byte can match.
    const key =
      transparency && transparency.length >= 6
        ? [transparency.readUInt16BE(0), transparency.readUInt16BE(2), transparency.readUInt16BE(4)]
        : undefined;
    for (let y = 0, p = 0; y < height; y++) {
      const row = y * (rowBytes + 1) + 1;
      data.copy(color, y * width * 3, row, row + width * 3);
      if (!alpha) continue;
      for (let x = 0; x < width; x++, p++) {
        const c = row + x * 3;
        alpha[p] = key && data[c] === key[0] && data[c + 1] === key[1] && data[c + 2] === key[2] ? 0 : 255;
      }
    }
    return { width, height, colorChannels, color, alpha };
  }

  // Grey or indexed, 1–8 bits per sample.
  const max = (1 << bitDepth) - 1;
  const mask = max;
  const perByte = 8 / bitDepth;
  const greyKey =
    colorType === 0 && transparency && transparency.length >= 2 ? transparency.readUInt16BE(0) : -1;
  const entries = palette ? palette.length / 3 : 0;
  for (let y = 0, p = 0; y < height; y++) {
    const row = y * (rowBytes + 1) + 1;
    for (let x = 0; x < width; x++, p++) {
      const byte = data[row + Math.floor(x / perByte)] ?? 0;
      const shift = 8 - bitDepth * ((x % perByte) + 1);
      const value = (byte >> shift) & mask;
      if (colorType === 0) {
        color[p] = Math.round((value * 255) / max);
        if (alpha) alpha[p] = value === greyKey ? 0 : 255;
      } else {
        if (value >= entries) return undefined;
        const c = p * 3;
        color[c] = palette?.[value * 3] ?? 0;
        color[c + 1] = palette?.[value * 3 + 1] ?? 0;
        color[c + 2] = palette?.[value * 3 + 2] ?? 0;
        if (alpha) alpha[p] = transparency?.[value] ?? 255;
      }
    }
  }
  return { width, height, colorChannels, color, alpha };
};
