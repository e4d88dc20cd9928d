import { promisify } from 'node:util';
import { deflate, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { PDFHexString } from 'pdf-lib';
import type { PDFContext, PDFRef } from 'pdf-lib';
import { decodePng, readPng } from './decode-png';
import type { Matrix } from '../layout/page-frame';

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
/**
 * Up to this many pixels (and bytes of file) a PNG is decoded here in JavaScript rather than by sharp:
 * drawn signatures are a few tens of thousands of pixels, where sharp's fixed cost per pipeline (and
 * the libvips threads it wakes) is most of the work.
 */
const DECODE_HERE_PIXELS = 1_000_000;
const DECODE_HERE_BYTES = 1024 * 1024;

/** Deflated on the calling thread below this many bytes: a thread-pool round trip costs more. */
const DEFLATE_INLINE_BYTES = 1024 * 1024;

const deflateSamples = async (samples: Buffer, level: number): Promise<Buffer> =>
  samples.length <= DEFLATE_INLINE_BYTES ? deflateSync(samples, { level }) : deflateAsync(samples, { level });

/** Store decoded 8-bit samples as an image XObject, with an /SMask when some pixel is not opaque. */
const storeSamples = async (
  context: PDFContext,
  image: { width: number; height: number; colorChannels: 1 | 3; color: Buffer; alpha?: Buffer },
): Promise<PDFRef> => {
  const { color } = image;
  const alpha = image.alpha && !isOpaque(image.alpha) ? image.alpha : undefined;
  // Level 3 compresses flat signature strokes as well as 6 in a third of the time; large images are
  // mostly photographs, where harder compression buys little.
  const level = color.length > 4 * 1024 * 1024 ? 1 : 3;
  const [colorDeflated, alphaDeflated] = await Promise.all([
    deflateSamples(color, level),
    alpha ? deflateSamples(alpha, level) : Promise.resolve(undefined),
  ]);
  const common = {
    Type: 'XObject',
    Subtype: 'Image',
    Width: image.width,
    Height: image.height,
    BitsPerComponent: 8,
  };
  const smask = alphaDeflated
    ? context.register(
        context.stream(alphaDeflated, { ...common, ColorSpace: 'DeviceGray', Filter: 'FlateDecode' }),
      )
    : undefined;
  return context.register(
    context.stream(colorDeflated, {
      ...common,
      ColorSpace: image.colorChannels === 1 ? 'DeviceGray' : 'DeviceRGB',
      Filter: 'FlateDecode',
      ...(smask ? { SMask: smask } : {}),
    }),
  );
};

/**
 * Decode the whole image with sharp and drop the pixels: data embedded as it is (a PNG's zlib stream,
 * a JPEG's DCT data) would otherwise reach the PDF unchecked, and a PNG whose image data is not zlib
 * or a JPEG cut short would sign as a blank or half-grey picture. `failOn: 'error'` refuses both.
 */
const assertDecodes = async (bytes: Buffer, maxPixels: number): Promise<void> => {
  try {
    await sharp(bytes, { failOn: 'error', limitInputPixels: maxPixels }).stats();
  } catch {
    throw new UnreadableImageError('the image data is damaged or incomplete');
  }
};

/**
 * A PNG handled without sharp: opaque 8-bit greyscale or RGB and indexed non-interlaced PNGs keep
 * their zlib stream (PDF's FlateDecode with /Predictor 15 applies the same row filters, so a 20 MB
 * scan goes in without being decoded and deflated again); other small ones are decoded here.
 * Undefined for what sharp must do: an ICC profile or EXIF orientation, 16-bit or interlaced pixels
 * beyond the passthrough, large images, damaged data (sharp words the error).
 */
const embedPngWithoutSharp = async (
  context: PDFContext,
  bytes: Buffer,
  maxPixels: number,
): Promise<EmbeddedImage | undefined> => {
  const small = bytes.length <= DECODE_HERE_BYTES;
  const png = readPng(bytes, { checkIdat: small });
  if (!png || png.iccProfile || png.exif) return undefined;
  const { width, height, bitDepth, colorType } = png;
  // RGB PNGs may carry a suggested palette (PLTE) too: only an indexed image is drawn through it.
  const palette = colorType === 3 ? png.palette : undefined;
  if (width * height > maxPixels) {
    throw new UnreadableImageError(`the image is too large (${width}x${height} pixels)`);
  }
  const passthrough =
    !png.interlaced &&
    !png.transparency &&
    (((colorType === 0 || colorType === 2) && bitDepth === 8) || (colorType === 3 && palette !== undefined));
  if (passthrough) {
    // The zlib data is kept as it is: prove first that it inflates to a whole image.
    if (!small || width * height > DECODE_HERE_PIXELS || !decodePng(png))
      await assertDecodes(bytes, maxPixels);
    const colors = colorType === 2 ? 3 : 1;
    const colorSpace = palette
      ? context.obj([
          'Indexed',
          'DeviceRGB',
          palette.length / 3 - 1,
          PDFHexString.of(palette.toString('hex')),
        ])
      : colors === 1
        ? 'DeviceGray'
        : 'DeviceRGB';
    const ref = context.register(
      context.stream(png.idat.length === 1 ? (png.idat[0] ?? Buffer.alloc(0)) : Buffer.concat(png.idat), {
        Type: 'XObject',
        Subtype: 'Image',
        Width: width,
        Height: height,
        ColorSpace: colorSpace,
        BitsPerComponent: bitDepth,
        Filter: 'FlateDecode',
        DecodeParms: { Predictor: 15, Colors: colors, BitsPerComponent: bitDepth, Columns: width },
      }),
    );
    return { ref, displayWidth: width, displayHeight: height, orientation: 1 };
  }
  if (!small || width * height > DECODE_HERE_PIXELS) return undefined;
  const decoded = decodePng(png);
  if (!decoded) return undefined;
  const ref = await storeSamples(context, decoded);
  return { ref, displayWidth: width, displayHeight: height, orientation: 1 };
};

/**
 * Put a PNG or JPEG into the document as an image XObject, decoding with sharp (libvips) rather
 * than pdf-lib's JavaScript decoder.
 *
 * Baseline and progressive 8-bit greyscale or RGB JPEGs are embedded as they are (DCTDecode): no
 * decoding, no quality loss; their EXIF orientation is applied when drawing, through
 * `orientationMatrix`. Opaque 8-bit greyscale, RGB and indexed PNGs keep their zlib data (PDF
 * applies the same PNG predictors); other PNGs up to a megapixel (drawn signatures) are decoded here.
 * Everything else is decoded by sharp, turned upright (`.rotate()`); decoded pixels are stored as
 * deflated samples with an /SMask for transparency.
 */
export const embedImage = async (
  context: PDFContext,
  bytes: Buffer,
  options: { maxPixels: number },
): Promise<EmbeddedImage> => {
  const withoutSharp = await embedPngWithoutSharp(context, bytes, options.maxPixels);
  if (withoutSharp) return withoutSharp;
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
    await assertDecodes(bytes, options.maxPixels);
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
    throw new UnreadableImageError('the image data is damaged or incomplete');
  }
  const ref = await storeSamples(context, {
    width: size.width,
    height: size.height,
    colorChannels: grey ? 1 : 3,
    color,
    alpha,
  });
  return { ref, displayWidth: size.width, displayHeight: size.height, orientation: 1 };
};
