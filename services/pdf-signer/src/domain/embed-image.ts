import { promisify } from 'node:util';
import { deflate } from 'node:zlib';
import sharp from 'sharp';
import { PDFHexString } from 'pdf-lib';
import type { PDFContext, PDFRef } from 'pdf-lib';
import type { Matrix } from './page-frame';

const deflateAsync = promisify(deflate);

/** EXIF orientation 1–8 (how the stored pixels must be turned or mirrored to be upright). */
export type Orientation = 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8;

/** An image XObject in the document, with what is needed to draw it upright. */
export interface EmbeddedImage {
  readonly ref: PDFRef;
  /** Size as a person sees it, in pixels (stored size turned by the orientation). */
  readonly displayWidth: number;
  readonly displayHeight: number;
  readonly orientation: Orientation;
}

/** Why an image could not be used; the caller turns it into a request error. */
export class UnreadableImageError extends Error {
  override readonly name = 'UnreadableImageError';
}

/**
 * For each EXIF orientation, the matrix that draws the stored image (PDF's unit square, row 0 at the
 * top) upright into the unit square. Orientations 5–8 swap width and height.
 */
const ORIENTATION_MATRICES: Readonly<Record<Orientation, Matrix>> = {
  1: [1, 0, 0, 1, 0, 0],
  2: [-1, 0, 0, 1, 1, 0],
  3: [-1, 0, 0, -1, 1, 1],
  4: [1, 0, 0, -1, 0, 1],
  5: [0, -1, -1, 0, 1, 1],
  6: [0, -1, 1, 0, 0, 1],
  7: [0, 1, 1, 0, 0, 0],
  8: [0, 1, -1, 0, 1, 0],
};

/** The unit-square matrix that makes an image with this orientation upright. */
export const orientationMatrix = (orientation: Orientation): Matrix => ORIENTATION_MATRICES[orientation];

/** Up to this many pixels, colour and alpha are decoded in parallel. */
const SMALL_IMAGE_PIXELS = 4_000_000;

const toOrientation = (value: number | undefined): Orientation =>
  value !== undefined && value >= 1 && value <= 8 ? (value as Orientation) : 1;

const isOpaque = (alpha: Buffer): boolean => {
  for (const value of alpha) if (value !== 255) return false;
  return true;
};
/** A PNG whose compressed pixel data PDF can read as it is (FlateDecode with the PNG predictors). */
interface PassthroughPng {
  readonly width: number;
  readonly height: number;
  readonly bitDepth: number;
  readonly colors: 1 | 3;
  readonly palette?: Buffer;
  readonly data: Buffer;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The zlib stream of a non-interlaced 8-bit greyscale or RGB PNG, or an indexed one, without
 * transparency or an ICC profile: PDF's FlateDecode with /Predictor 15 decodes it directly, so a
 * 20 MB scan goes into the PDF without being decoded and deflated again. Anything else: undefined.
 */
const readPassthroughPng = (bytes: Buffer): PassthroughPng | undefined => {
  if (bytes.length < 33 || !bytes.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  let width = 0;
  let height = 0;
  let bitDepth = 0;
  let colorType = -1;
  let palette: Buffer | undefined;
  const idat: Buffer[] = [];
  for (let at = 8; at + 8 <= bytes.length;) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.toString('latin1', at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    if (data.length !== length) return undefined;
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      bitDepth = data[8] ?? 0;
      colorType = data[9] ?? -1;
      if (data[12] !== 0) return undefined; // interlaced
    } else if (type === 'PLTE') {
      palette = data;
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'tRNS' || type === 'iCCP') {
      return undefined;
    } else if (type === 'IEND') {
      break;
    }
    at += 12 + length;
  }
  if (!width || !height || idat.length === 0) return undefined;
  if ((colorType === 0 || colorType === 2) && bitDepth === 8) {
    return { width, height, bitDepth, colors: colorType === 0 ? 1 : 3, data: Buffer.concat(idat) };
  }
  if (colorType === 3 && palette && [1, 2, 4, 8].includes(bitDepth)) {
    return { width, height, bitDepth, colors: 1, palette, data: Buffer.concat(idat) };
  }
  return undefined;
};

/**
 * Put a PNG or JPEG into the document as an image XObject, decoding with sharp (libvips) rather
 * than pdf-lib's JavaScript decoder.
 *
 * Baseline and progressive 8-bit greyscale or RGB JPEGs are embedded as they are (DCTDecode): no
 * decoding, no quality loss; their EXIF orientation is applied when drawing, through
 * `orientationMatrix`. Opaque 8-bit greyscale, RGB and indexed PNGs keep their zlib data (PDF
 * applies the same PNG predictors). Everything else is decoded, turned upright (sharp's `.rotate()`),
 * and stored as deflated samples with an /SMask for transparency.
 */
export const embedImage = async (
  context: PDFContext,
  bytes: Buffer,
  options: { maxPixels: number },
): Promise<EmbeddedImage> => {
  let meta: sharp.Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: options.maxPixels }).metadata();
  } catch {
    throw new UnreadableImageError('not a readable PNG or JPEG image');
  }
  const { width, height } = meta;
  if (meta.format !== 'jpeg' && meta.format !== 'png')
    throw new UnreadableImageError('not a PNG or JPEG image');
  if (!width || !height) throw new UnreadableImageError('the image has no size');
  if (width * height > options.maxPixels) {
    throw new UnreadableImageError(`the image is too large (${width}x${height} pixels)`);
  }

  if (
    meta.format === 'jpeg' &&
    (meta.channels === 1 || meta.channels === 3) &&
    (meta.space === 'srgb' || meta.space === 'b-w') &&
    meta.depth === 'uchar'
  ) {
    const orientation = toOrientation(meta.orientation);
    const ref = context.register(
      context.stream(bytes, {
        Type: 'XObject',
        Subtype: 'Image',
        Width: width,
        Height: height,
        ColorSpace: meta.channels === 1 ? 'DeviceGray' : 'DeviceRGB',
        BitsPerComponent: 8,
        Filter: 'DCTDecode',
      }),
    );
    const turned = orientation >= 5;
    return {
      ref,
      displayWidth: turned ? height : width,
      displayHeight: turned ? width : height,
      orientation,
    };
  }

  const png = meta.format === 'png' ? readPassthroughPng(bytes) : undefined;
  if (png && png.width === width && png.height === height) {
    const colorSpace = png.palette
      ? context.obj([
          'Indexed',
          'DeviceRGB',
          png.palette.length / 3 - 1,
          PDFHexString.of(png.palette.toString('hex')),
        ])
      : png.colors === 1
        ? 'DeviceGray'
        : 'DeviceRGB';
    const ref = context.register(
      context.stream(png.data, {
        Type: 'XObject',
        Subtype: 'Image',
        Width: width,
        Height: height,
        ColorSpace: colorSpace,
        BitsPerComponent: png.bitDepth,
        Filter: 'FlateDecode',
        DecodeParms: { Predictor: 15, Colors: png.colors, BitsPerComponent: png.bitDepth, Columns: width },
      }),
    );
    const orientation = toOrientation(meta.orientation);
    const turned = orientation >= 5;
    return {
      ref,
      displayWidth: turned ? height : width,
      displayHeight: turned ? width : height,
      orientation,
    };
  }

  // Small images (drawn signatures) are decoded twice at once, colour and alpha on two threads; big
  // ones once, then split by libvips from the raw pixels.
  const grey = (meta.channels ?? 3) <= 2;
  const withAlpha = meta.hasAlpha === true;
  const space = grey ? 'b-w' : 'srgb';
  let color: Buffer;
  let alpha: Buffer | undefined;
  let size: { width: number; height: number };
  try {
    const upright = sharp(bytes, { limitInputPixels: options.maxPixels }).rotate();
    if (!withAlpha) {
      const { data, info } = await upright
        .toColourspace(space)
        .raw({ depth: 'uchar' })
        .toBuffer({ resolveWithObject: true });
      [color, size] = [data, info];
    } else if (width * height <= SMALL_IMAGE_PIXELS) {
      const [colorOut, alphaOut] = await Promise.all([
        upright
          .clone()
          .removeAlpha()
          .toColourspace(space)
          .raw({ depth: 'uchar' })
          .toBuffer({ resolveWithObject: true }),
        upright.clone().extractChannel('alpha').raw({ depth: 'uchar' }).toBuffer(),
      ]);
      [color, alpha, size] = [colorOut.data, alphaOut, colorOut.info];
    } else {
      const { data, info } = await upright
        .toColourspace(space)
        .raw({ depth: 'uchar' })
        .toBuffer({ resolveWithObject: true });
      const raw = { raw: { width: info.width, height: info.height, channels: info.channels } } as const;
      [color, alpha] = await Promise.all([
        sharp(data, raw).removeAlpha().raw().toBuffer(),
        sharp(data, raw).extractChannel('alpha').raw().toBuffer(),
      ]);
      size = info;
    }
  } catch {
    throw new UnreadableImageError('the image data is damaged');
  }
  if (alpha && isOpaque(alpha)) alpha = undefined;
  const colorChannels = grey ? 1 : 3;
  // Level 3 compresses flat signature strokes as well as 6 in a third of the time; large images are
  // mostly photographs, where harder compression buys little.
  const level = color.length > 4 * 1024 * 1024 ? 1 : 3;
  const [colorDeflated, alphaDeflated] = await Promise.all([
    deflateAsync(color, { level }),
    alpha ? deflateAsync(alpha, { level }) : Promise.resolve(undefined),
  ]);
  const common = {
    Type: 'XObject',
    Subtype: 'Image',
    Width: size.width,
    Height: size.height,
    BitsPerComponent: 8,
  };
  const smask = alphaDeflated
    ? context.register(
        context.stream(alphaDeflated, { ...common, ColorSpace: 'DeviceGray', Filter: 'FlateDecode' }),
      )
    : undefined;
  const ref = context.register(
    context.stream(colorDeflated, {
      ...common,
      ColorSpace: colorChannels === 1 ? 'DeviceGray' : 'DeviceRGB',
      Filter: 'FlateDecode',
      ...(smask ? { SMask: smask } : {}),
    }),
  );
  return { ref, displayWidth: size.width, displayHeight: size.height, orientation: 1 };
};
