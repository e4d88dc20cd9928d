import { describe, expect, it } from 'vitest';
import { parseImageDataUri, SNIFF_BYTES, sniffDocumentKind } from './sniff';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);

describe('sniffDocumentKind', () => {
  it('tells PDF, PNG and JPEG apart by their bytes', () => {
    expect(sniffDocumentKind(Buffer.from('%PDF-1.7\n%âãÏÓ'))).toBe('pdf');
    expect(sniffDocumentKind(PNG_MAGIC)).toBe('png');
    expect(sniffDocumentKind(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 16]))).toBe('jpeg');
  });

  it('accepts a PDF header preceded by junk, up to 64 KiB in (the signer repairs such files)', () => {
    expect(sniffDocumentKind(Buffer.concat([Buffer.alloc(100, 0x20), Buffer.from('%PDF-1.4')]))).toBe('pdf');
    expect(sniffDocumentKind(Buffer.concat([Buffer.alloc(1100, 0x20), Buffer.from('%PDF-1.4')]))).toBe('pdf');
    expect(
      sniffDocumentKind(Buffer.concat([Buffer.alloc(SNIFF_BYTES, 0x20), Buffer.from('%PDF-1.4')])),
    ).toBeUndefined();
  });

  it('rejects anything else, whatever it is called', () => {
    expect(sniffDocumentKind(Buffer.from('hello, this is text'))).toBeUndefined();
    expect(sniffDocumentKind(Buffer.from('GIF89a...'))).toBeUndefined();
    expect(sniffDocumentKind(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('parseImageDataUri', () => {
  it('accepts a PNG data URI whose bytes are really PNG, passing the base64 on as it is', () => {
    const base64 = Buffer.concat([PNG_MAGIC, Buffer.alloc(20)]).toString('base64');
    expect(parseImageDataUri(`data:image/png;base64,${base64}`)).toEqual({ kind: 'png', base64 });
    expect(parseImageDataUri(`data:image/png;base64,${base64.slice(0, 20)}\n${base64.slice(20)}`)).toEqual({
      kind: 'png',
      base64,
    });
  });

  it('refuses a data URI whose bytes do not match an image, or that is not base64', () => {
    expect(
      parseImageDataUri(`data:image/png;base64,${Buffer.from('text').toString('base64')}`),
    ).toBeUndefined();
    expect(parseImageDataUri('data:image/png,rawtext')).toBeUndefined();
    expect(parseImageDataUri('data:text/plain;base64,AAAA')).toBeUndefined();
    expect(parseImageDataUri('not a uri')).toBeUndefined();
    expect(parseImageDataUri(`data:image/png;base64,${PNG_MAGIC.toString('base64')}!!`)).toBeUndefined();
  });
});
