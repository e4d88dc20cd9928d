import type { TDocumentKind } from '@esign/contracts';

/**
 * Bytes looked at to tell the supported kinds apart. The PDF specification puts the header in the
 * first 1024 bytes, but qpdf and poppler find it later too (junk a mail program or a scanner put in
 * front), and the signer repairs such files: the gateway lets them through up to 64 KiB in.
 */
export const SNIFF_BYTES = 64 * 1024;

/** The real type of an upload from its first bytes, whatever its name or declared type says. */
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

/**
 * Check a `data:image/png;base64,…` (or jpeg) URI without decoding all of it: the base64 text is
 * validated and passed on as it is; only its first bytes are decoded to confirm the image type.
 */
export const parseImageDataUri = (value: string): { kind: 'png' | 'jpeg'; base64: string } | undefined => {
  const header = /^\s*data:image\/(png|jpe?g);base64,/i.exec(value);
  if (!header) return undefined;
  let base64 = value.slice(header[0].length).trimEnd();
  if (/\s/.test(base64)) base64 = base64.replace(/\s+/g, '');
  if (base64.length < 16 || base64.length % 4 === 1 || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64))
    return undefined;
  const kind = sniffDocumentKind(Buffer.from(base64.slice(0, 16), 'base64'));
  if (kind !== 'png' && kind !== 'jpeg') return undefined;
  return { kind, base64 };
};
