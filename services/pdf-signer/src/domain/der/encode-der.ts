/**
 * The few DER (ASN.1 distinguished encoding) building blocks the CMS signature needs. Hand-written
 * because the signature is built on every request and node-forge's object model costs more than the
 * signing itself.
 */

const encodeLength = (length: number): Buffer => {
  if (length < 0x80) return Buffer.from([length]);
  const bytes: number[] = [];
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes.unshift(n & 0xff);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
};

/** One element: tag, length and the concatenated content. */
export const derElement = (tag: number, ...content: Buffer[]): Buffer => {
  const body = content.length === 1 && content[0] ? content[0] : Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), encodeLength(body.length), body]);
};

export const derSequence = (...content: Buffer[]): Buffer => derElement(0x30, ...content);

/** SET OF: DER wants the members sorted by their encodings. */
export const derSetOf = (...members: Buffer[]): Buffer =>
  derElement(0x31, ...[...members].sort((a, b) => Buffer.compare(a, b)));

/** Context-specific constructed tag `[n]` (EXPLICIT, or IMPLICIT over a constructed type). */
export const derContext = (n: number, ...content: Buffer[]): Buffer => derElement(0xa0 | n, ...content);

export const derNull = (): Buffer => Buffer.from([0x05, 0x00]);

export const derOctetString = (bytes: Buffer): Buffer => derElement(0x04, bytes);

/** A non-negative INTEGER from its big-endian magnitude. */
export const derUnsignedInteger = (magnitude: Buffer): Buffer => {
  let start = 0;
  while (start < magnitude.length - 1 && magnitude[start] === 0) start++;
  const trimmed = magnitude.subarray(start);
  const needsPad = (trimmed[0] ?? 0) & 0x80;
  return derElement(0x02, needsPad ? Buffer.concat([Buffer.from([0]), trimmed]) : trimmed);
};

export const derSmallInteger = (value: number): Buffer => derUnsignedInteger(Buffer.from([value]));

/** An OBJECT IDENTIFIER from its dotted form; each subidentifier base 128, high bit on all but the last. */
export const derOid = (oid: string): Buffer => {
  const [first = 0, second = 0, ...rest] = oid.split('.').map(Number);
  // The first two arcs share one subidentifier, which may itself take several bytes (2.999: 0x8837).
  const bytes: number[] = [];
  for (const part of [first * 40 + second, ...rest]) {
    const chunk: number[] = [part % 128];
    for (let n = Math.floor(part / 128); n > 0; n = Math.floor(n / 128)) chunk.unshift((n % 128) | 0x80);
    bytes.push(...chunk);
  }
  return derElement(0x06, Buffer.from(bytes));
};

const pad2 = (n: number) => String(n).padStart(2, '0');

/** UTCTime for 1950–2049 and GeneralizedTime after, as RFC 5652 prescribes for signingTime. */
export const derTime = (date: Date): Buffer => {
  const year = date.getUTCFullYear();
  const rest = `${pad2(date.getUTCMonth() + 1)}${pad2(date.getUTCDate())}${pad2(date.getUTCHours())}${pad2(
    date.getUTCMinutes(),
  )}${pad2(date.getUTCSeconds())}Z`;
  if (year >= 1950 && year < 2050)
    return derElement(0x17, Buffer.from(`${pad2(year % 100)}${rest}`, 'latin1'));
  return derElement(0x18, Buffer.from(`${year}${rest}`, 'latin1'));
};
