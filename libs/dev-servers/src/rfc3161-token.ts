import { createHash, createPrivateKey, sign, X509Certificate } from 'node:crypto';
import type { KeyObject } from 'node:crypto';

/**
 * RFC 3161 time-stamp replies made in-process with node:crypto (no openssl process per token): what
 * the concurrent test TSA answers with. The token is a CMS SignedData (RFC 5652) over a TSTInfo, with
 * the ESS signingCertificateV2 attribute RFC 3161 §2.4.2 requires (RFC 5035), the TSA's certificate
 * and its CA's, as `openssl ts -reply` would make it; `openssl ts -verify` and pdfsig accept it.
 */

// DER: just enough to encode these structures and read a TimeStampReq and a certificate.
const length = (n: number): Buffer => {
  if (n < 0x80) return Buffer.from([n]);
  const bytes: number[] = [];
  for (let rest = n; rest > 0; rest = Math.floor(rest / 256)) bytes.unshift(rest % 256);
  return Buffer.from([0x80 | bytes.length, ...bytes]);
};
const tlv = (tag: number, ...content: Buffer[]): Buffer => {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), length(body.length), body]);
};
const sequence = (...content: Buffer[]) => tlv(0x30, ...content);
/** A DER SET OF: its elements in ascending order of their encodings. */
const setOf = (...content: Buffer[]) => tlv(0x31, ...[...content].sort((a, b) => Buffer.compare(a, b)));
const octets = (bytes: Buffer) => tlv(0x04, bytes);
const integer = (value: number): Buffer => {
  const bytes: number[] = [];
  for (let rest = value; rest > 0 || bytes.length === 0; rest = Math.floor(rest / 256))
    bytes.unshift(rest % 256);
  if ((bytes[0] ?? 0) & 0x80) bytes.unshift(0);
  return tlv(0x02, Buffer.from(bytes));
};
const oid = (dotted: string): Buffer => {
  const [first = 0, second = 0, ...rest] = dotted.split('.').map(Number);
  const bytes = [first * 40 + second];
  for (const arc of rest) {
    const base128 = [arc & 0x7f];
    for (let v = Math.floor(arc / 128); v > 0; v = Math.floor(v / 128)) base128.unshift((v & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
};
/** GeneralizedTime with milliseconds, as TSAs write it: YYYYMMDDHHMMSS.sssZ. */
const generalizedTime = (date: Date) =>
  tlv(
    0x18,
    Buffer.from(
      date
        .toISOString()
        .replace(/[-:T]/g, '')
        .replace(/\.?0*Z$/, 'Z'),
      'latin1',
    ),
  );

interface Node {
  readonly tag: number;
  readonly start: number;
  readonly contentStart: number;
  readonly end: number;
}
const read = (buf: Buffer, at: number): Node => {
  const tag = buf[at] ?? 0;
  let size = buf[at + 1] ?? 0;
  let contentStart = at + 2;
  if (size & 0x80) {
    const count = size & 0x7f;
    size = 0;
    for (let i = 0; i < count; i++) size = size * 256 + (buf[contentStart++] ?? 0);
  }
  if (contentStart + size > buf.length) throw new Error('DER: truncated');
  return { tag, start: at, contentStart, end: contentStart + size };
};
const children = (buf: Buffer, node: Node): Node[] => {
  const found: Node[] = [];
  for (let at = node.contentStart; at < node.end;) {
    const child = read(buf, at);
    found.push(child);
    at = child.end;
  }
  return found;
};
const raw = (buf: Buffer, node: Node) => buf.subarray(node.start, node.end);

const OID_SHA256 = '2.16.840.1.101.3.4.2.1';
const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const OID_TST_INFO = '1.2.840.113549.1.9.16.1.4';
const OID_CONTENT_TYPE = '1.2.840.113549.1.9.3';
const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const OID_SIGNING_TIME = '1.2.840.113549.1.9.5';
const OID_SIGNING_CERTIFICATE_V2 = '1.2.840.113549.1.9.16.2.47';
const OID_ECDSA_SHA256 = '1.2.840.10045.4.3.2';
const OID_RSA_SHA256 = '1.2.840.113549.1.1.11';
const POLICY = '1.3.6.1.4.1.99999.1';

const SHA256 = sequence(oid(OID_SHA256));
const utcTime = (date: Date) =>
  tlv(0x17, Buffer.from(date.toISOString().slice(2, 19).replace(/[-:T]/g, '') + 'Z', 'latin1'));

/** What the TSA signs with: its key, its certificate (DER) and the certificates sent with tokens. */
export interface TokenSigner {
  /** A TimeStampResp (granted) for a DER TimeStampReq; throws on a query it cannot read. */
  reply(query: Buffer, serial: number, time?: Date): Buffer;
}

/** A signer of time-stamp tokens from the TSA's PEM key and certificate and its CA's certificate. */
export const createTokenSigner = (pem: {
  keyPem: string;
  certPem: string;
  caCertPem: string;
}): TokenSigner => {
  const key: KeyObject = createPrivateKey(pem.keyPem);
  const tsaCert = new X509Certificate(pem.certPem).raw;
  const caCert = new X509Certificate(pem.caCertPem).raw;
  // IssuerAndSerialNumber of the TSA's certificate, from its tbsCertificate.
  const [tbs] = children(tsaCert, read(tsaCert, 0));
  if (!tbs) throw new Error('TSA certificate: no tbsCertificate');
  const fields = children(tsaCert, tbs);
  const first = fields[0]?.tag === 0xa0 ? 1 : 0;
  const serialNode = fields[first];
  const issuerNode = fields[first + 2];
  if (!serialNode || !issuerNode) throw new Error('TSA certificate: no serial number or issuer');
  const issuerAndSerial = sequence(raw(tsaCert, issuerNode), raw(tsaCert, serialNode));
  // ESSCertIDv2 { certHash } (hashAlgorithm SHA-256, the default, omitted).
  const signingCertificate = sequence(
    oid(OID_SIGNING_CERTIFICATE_V2),
    setOf(sequence(sequence(sequence(octets(createHash('sha256').update(tsaCert).digest()))))),
  );
  const ec = key.asymmetricKeyType === 'ec';
  const signatureAlgorithm = ec ? sequence(oid(OID_ECDSA_SHA256)) : sequence(oid(OID_RSA_SHA256), tlv(0x05));
  const certificates = tlv(0xa0, ...[tsaCert, caCert].sort((a, b) => Buffer.compare(a, b)));

  return {
    reply(query, serial, time = new Date()) {
      // TimeStampReq { version, messageImprint, reqPolicy?, nonce?, certReq?, extensions? }.
      const request = read(query, 0);
      if (request.tag !== 0x30 || request.end !== query.length)
        throw new Error('TimeStampReq: not a SEQUENCE');
      const [version, imprint, ...rest] = children(query, request);
      if (version?.tag !== 0x02 || imprint?.tag !== 0x30)
        throw new Error('TimeStampReq: unexpected structure');
      const nonce = rest.find((n) => n.tag === 0x02);
      const certReq = rest.find((n) => n.tag === 0x01);
      const withCertificates = certReq !== undefined && query[certReq.contentStart] !== 0;
      const tstInfo = sequence(
        integer(1),
        oid(POLICY),
        raw(query, imprint),
        integer(serial),
        generalizedTime(time),
        sequence(integer(1)),
        ...(nonce ? [raw(query, nonce)] : []),
      );
      const attributes = [
        sequence(oid(OID_CONTENT_TYPE), setOf(oid(OID_TST_INFO))),
        sequence(oid(OID_SIGNING_TIME), setOf(utcTime(time))),
        sequence(oid(OID_MESSAGE_DIGEST), setOf(octets(createHash('sha256').update(tstInfo).digest()))),
        signingCertificate,
      ];
      // Signed as a SET OF; carried as [0] IMPLICIT.
      const signedAttributes = setOf(...attributes);
      const signature = sign('sha256', signedAttributes, key);
      const signerInfo = sequence(
        integer(1),
        issuerAndSerial,
        SHA256,
        Buffer.concat([Buffer.from([0xa0]), signedAttributes.subarray(1)]),
        signatureAlgorithm,
        octets(signature),
      );
      const signedData = sequence(
        integer(3),
        setOf(SHA256),
        sequence(oid(OID_TST_INFO), tlv(0xa0, octets(tstInfo))),
        ...(withCertificates ? [certificates] : []),
        setOf(signerInfo),
      );
      const token = sequence(oid(OID_SIGNED_DATA), tlv(0xa0, signedData));
      return sequence(sequence(integer(0)), token);
    },
  };
};
