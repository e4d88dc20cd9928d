import type { TDocumentKind } from '@esign/contracts';

/** Bytes needed to tell the supported kinds apart. */
export const SNIFF_BYTES = 1024;

/**
 * The real type of an upload from its first bytes, whatever its name or declared type says.
 * PDF readers accept the header anywhere in the first 1024 bytes, so this does too.
 */
export const sniffDocumentKind = (head: Buffer): TDocumentKind | undefined => {
  if (
    head.length >= 8 &&
    head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  ) {
    return 'png';
  }
  if (head.length >= 3 && head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpeg';
  if (head.subarray(0, SNIFF_BYTES).includes('%PDF-')) return 'pdf';
  return undefined;
};

/** Decode a `data:image/png;base64,…` (or jpeg) URI; undefined when it is not one. */
export const parseImageDataUri = (value: string): { kind: 'png' | 'jpeg'; bytes: Buffer } | undefined => {
  const match = /^data:image\/(png|jpe?g);base64,([A-Za-z0-9+/\s]+={0,2})$/i.exec(value.trim());
  if (!match?.[2]) return undefined;
  const bytes = Buffer.from(match[2].replace(/\s+/g, ''), 'base64');
  const kind = sniffDocumentKind(bytes);
  if (kind !== 'png' && kind !== 'jpeg') return undefined;
  return { kind, bytes };
};
