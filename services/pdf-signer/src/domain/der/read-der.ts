/**
 * The one DER reader of the service: elements, object identifiers and times, as signing (the
 * certificate, the TSA's answer), verification (a signature's CMS and its timestamp token) and
 * revocation (OCSP responses, CRLs, certificate extensions) read them. It throws `DerError` on
 * anything it cannot read; each caller decides what an unreadable part means to it (verification
 * reports it and carries on, see verify-pdf.ts; the TSA client tries the next authority; revocation
 * counts the source as unavailable), so no reader returns a quiet `null` that a caller could forget.
 * The one exception is `readOid`, see there.
 */

/** Data that is not the DER this reader expects (truncated, malformed, or a form it does not read). */
export class DerError extends Error {
  override readonly name = 'DerError';
}

/** Where one element sits inside a buffer. */
export interface DerNode {
  readonly tag: number;
  /** Offset of the tag byte. */
  readonly start: number;
  /** Offset of the first content byte. */
  readonly contentStart: number;
  /** Offset just past the element. */
  readonly end: number;
}

/** Read the element that starts at `offset` (definite lengths only, which DER guarantees). */
export const readDer = (buf: Buffer, offset: number): DerNode => {
  const tag = buf[offset];
  const first = buf[offset + 1];
  if (tag === undefined || first === undefined) throw new DerError('DER: unexpected end of data');
  let length = first;
  let contentStart = offset + 2;
  if (first & 0x80) {
    const count = first & 0x7f;
    if (count === 0 || count > 4) throw new DerError('DER: unsupported length');
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + (buf[offset + 2 + i] ?? 0);
    contentStart += count;
  }
  const end = contentStart + length;
  if (end > buf.length) throw new DerError('DER: element runs past the end of data');
  return { tag, start: offset, contentStart, end };
};

/** The children of a constructed element, each inside it. */
export const readDerChildren = (buf: Buffer, node: DerNode): DerNode[] => {
  const children: DerNode[] = [];
  for (let at = node.contentStart; at < node.end;) {
    const child = readDer(buf, at);
    if (child.end > node.end) throw new DerError('DER: element runs past the end of its parent');
    children.push(child);
    at = child.end;
  }
  return children;
};

/** An element's content bytes (a view, not a copy). */
export const derContent = (buf: Buffer, node: DerNode): Buffer => buf.subarray(node.contentStart, node.end);

/** An element with its tag and length (a view, not a copy). */
export const derBytes = (buf: Buffer, node: DerNode): Buffer => buf.subarray(node.start, node.end);

/**
 * A non-negative INTEGER's big-endian magnitude: its content (or a raw big-endian number) without
 * the leading zero bytes (the sign byte DER adds to a value whose top bit is set, among them), at
 * least one byte. For comparing serial numbers and nonces however they were padded.
 */
export const integerMagnitude = (bytes: Buffer): Buffer => {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) start++;
  return bytes.subarray(start);
};

/**
 * An OBJECT IDENTIFIER in dotted form. Every subidentifier is read base 128 (arcs of any size, the
 * first one too: 2.999 is 0x88 0x37), and the first is split as X.690 says: below 40 is arc 0,
 * below 80 arc 1, anything above is arc 2 with the rest as its second arc (2.40, 2.999).
 *
 * Unlike the other readers it does not throw: content that is not a well-formed OID (empty, its
 * last subidentifier cut off, or one padded with a leading 0x80) reads as `''`, which matches no
 * identifier anyone looks for. Every caller compares OIDs with the ones it knows and treats an
 * unknown one as "not what I need" (verification: an unsupported algorithm, said in the report), so
 * a malformed OID is simply an unknown one; and it can never be mistaken for a known one.
 */
export const readOid = (buf: Buffer, node: DerNode): string => {
  const bytes = derContent(buf, node);
  const subidentifiers: (number | bigint)[] = [];
  let value: number | bigint = 0;
  let started = false;
  for (const b of bytes) {
    // A subidentifier starting 0x80 is not minimal: not DER, and another spelling of a known arc.
    if (!started && b === 0x80) return '';
    started = true;
    // Past 2^53 a number loses digits: such arcs (2.25.<UUID>) continue as a bigint.
    if (typeof value === 'number' && value >= 2 ** 45) value = BigInt(value);
    value = typeof value === 'bigint' ? value * 128n + BigInt(b & 0x7f) : value * 128 + (b & 0x7f);
    if ((b & 0x80) === 0) {
      subidentifiers.push(value);
      value = 0;
      started = false;
    }
  }
  const [first, ...rest] = subidentifiers;
  if (first === undefined || started) return '';
  const arcs =
    typeof first === 'bigint'
      ? [2n, first - 80n]
      : first < 40
        ? [0, first]
        : first < 80
          ? [1, first - 40]
          : [2, first - 80];
  return [...arcs, ...rest].join('.');
};

const UTC_TIME = 0x17;
const GENERALIZED_TIME = 0x18;

/**
 * A UTCTime or GeneralizedTime, in UTC. Read: `YYMMDDHHMM[SS]Z` (UTCTime: 50–99 are 1950–1999,
 * 00–49 are 2000–2049, as RFC 5280 says) and `YYYYMMDDHHMM[SS][.f+]Z` (GeneralizedTime; the
 * fraction kept to the millisecond). The year's width follows the tag, never the length of the text.
 * Seconds may be left out (BER allows it, DER does not; the verifier read such times before this
 * reader was shared, and still does). Not read: local times and offsets (`+0100`), which neither
 * RFC 5280 nor RFC 3161 allow, and dates that do not exist (month 13, 30 February): `DerError`.
 */
export const readTime = (buf: Buffer, node: DerNode): Date => {
  const text = derContent(buf, node).toString('latin1');
  const pattern =
    node.tag === UTC_TIME
      ? /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?Z$/
      : node.tag === GENERALIZED_TIME
        ? /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})?(?:\.(\d+))?Z$/
        : undefined;
  if (!pattern) throw new DerError(`DER: tag 0x${node.tag.toString(16)} is not a time`);
  const m = pattern.exec(text);
  if (!m) throw new DerError(`DER: unreadable time ${JSON.stringify(text)}`);
  const [, y = '', mo = '', d = '', h = '', mi = '', s = '00', fraction] = m;
  const year = node.tag === UTC_TIME ? (Number(y) >= 50 ? 1900 : 2000) + Number(y) : Number(y);
  const ms = fraction ? Math.floor(Number(`0.${fraction}`) * 1000) : 0;
  const date = new Date(Date.UTC(year, Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s), ms));
  // Date.UTC carries an overflow into the next field (month 13 is January): a date that does not
  // come back field for field does not exist.
  const exists =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === Number(mo) - 1 &&
    date.getUTCDate() === Number(d) &&
    date.getUTCHours() === Number(h) &&
    date.getUTCMinutes() === Number(mi) &&
    date.getUTCSeconds() === Number(s);
  if (!exists) throw new DerError(`DER: no such time ${JSON.stringify(text)}`);
  return date;
};
