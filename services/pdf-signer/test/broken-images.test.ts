import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf, pdfSig } from '@esign/testing';
import { startTestSigner } from './start-test-signer';
import type { TestSigner } from './start-test-signer';

let sut: TestSigner;
beforeAll(async () => {
  sut = await startTestSigner();
});
afterAll(async () => {
  await sut?.stop();
});

/** Noise, so that a JPEG's entropy-coded data fills most of the file. */
const noise = (width: number, height: number, channels: 3 | 4) =>
  sharp(
    Buffer.from(Array.from({ length: width * height * channels }, (_, i) => (i * 7919 + (i >> 7)) % 251)),
    { raw: { width, height, channels } },
  );

/** An opaque RGB PNG, the kind whose zlib data goes into the PDF as it is. */
const opaquePng = (width: number, height: number) => noise(width, height, 3).png().toBuffer();

/** The same PNG with its IDAT data replaced by bytes that are not zlib (chunk CRCs kept right). */
const withCorruptIdat = (png: Buffer): Buffer => {
  const out = Buffer.from(png);
  for (let at = 8; at + 12 <= out.length;) {
    const length = out.readUInt32BE(at);
    if (out.toString('latin1', at + 4, at + 8) === 'IDAT') {
      for (let i = 0; i < length; i++) out[at + 8 + i] = (i * 37 + 11) & 0xff;
      out.writeUInt32BE(crc32(out.subarray(at + 4, at + 8 + length)), at + 8 + length);
    }
    at += 12 + length;
  }
  return out;
};

/** A JPEG cut in half. */
const truncatedJpeg = async (width: number, height: number) => {
  const jpeg = await noise(width, height, 3).jpeg().toBuffer();
  return jpeg.subarray(0, jpeg.length >> 1);
};

describe('damaged images', () => {
  it('signs sound images of both kinds that are embedded as they are (the check accepts them)', async () => {
    const png = await opaquePng(400, 300);
    const jpeg = await noise(400, 300, 3).jpeg().toBuffer();
    for (const [kind, bytes] of [
      ['png', png],
      ['jpeg', jpeg],
    ] as const) {
      const { signed } = await sut.sign(bytes, {
        kind,
        signature: { mode: 'upload', imageBase64: bytes.toString('base64') },
      });
      expect((await pdfSig(signed)).stdout).toContain('Signature is Valid.');
    }
  });

  it.each([
    [
      'a PNG whose image data is not zlib (small)',
      'png',
      async () => withCorruptIdat(await opaquePng(200, 100)),
    ],
    [
      'a PNG whose image data is not zlib (large)',
      'png',
      async () => withCorruptIdat(await opaquePng(1200, 1000)),
    ],
    ['a JPEG cut in half', 'jpeg', () => truncatedJpeg(800, 600)],
  ] as const)('refuses %s as the file, naming the file', async (_, kind, make) => {
    const err = await sut.signError(await make(), { kind });
    expect(err).toMatchObject({ code: 'invalid_argument', field: 'file' });
    expect(err.message).toBe('file: the image data is damaged or incomplete');
  });

  it.each([
    ['a PNG whose image data is not zlib', async () => withCorruptIdat(await opaquePng(300, 100))],
    ['a JPEG cut in half', () => truncatedJpeg(300, 100)],
  ] as const)('refuses %s as signatureData, naming signatureData', async (_, make) => {
    const image = await make();
    for (const mode of ['draw', 'upload'] as const) {
      const err = await sut.signError(await makePdf(), {
        signature: { mode, imageBase64: image.toString('base64') },
      });
      expect(err).toMatchObject({ code: 'invalid_argument', field: 'signatureData' });
      expect(err.message).toBe('signatureData: the image data is damaged or incomplete');
    }
  });
});
