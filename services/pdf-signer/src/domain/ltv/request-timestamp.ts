import { createHash, randomBytes, X509Certificate } from 'node:crypto';
import { ServiceError } from '@esign/contracts';
import {
  derElement,
  derNull,
  derOctetString,
  derOid,
  derSequence,
  derSmallInteger,
  derUnsignedInteger,
} from '../der/encode-der';
import { DerError, derContent, readDer, readDerChildren, integerMagnitude, readTime } from '../der/read-der';
import type { DerNode } from '../der/read-der';
import { TimestampAuthorityError } from './ports';
import type { LtvObserver, TimestampAuthority } from './ports';

const OID_SHA256 = '2.16.840.1.101.3.4.2.1';
const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const OID_TST_INFO = '1.2.840.113549.1.9.16.1.4';
const OID_TIME_STAMPING = '1.3.6.1.5.5.7.3.8';

// Encoded once: the same in every request.
const VERSION_1 = derSmallInteger(1);
const SHA256_ALGORITHM = derSequence(derOid(OID_SHA256), derNull());
const CERT_REQ_TRUE = Buffer.from([0x01, 0x01, 0xff]);
const SIGNED_DATA = derOid(OID_SIGNED_DATA).subarray(2);
const TST_INFO = derOid(OID_TST_INFO).subarray(2);
const SHA256_OID = derOid(OID_SHA256).subarray(2);

/** Where the time-stamping authorities are and how long each may take. */
export interface TimestampSettings {
  /** TSA URLs, tried in order. */
  readonly urls: readonly string[];
  /** Longest one TSA may take to answer, in ms. */
  readonly timeoutMs: number;
  /** Largest token accepted (the signature placeholder reserves this much for it). */
  readonly maxTokenBytes: number;
}

/** An RFC 3161 timestamp token over a signature value and what it says. */
export interface SignatureTimestamp {
  /** The TimeStampToken (a CMS ContentInfo), DER. */
  readonly token: Buffer;
  /** The TSA's time (TSTInfo genTime), ISO 8601 UTC. */
  readonly time: string;
  /** Who issued it: the TSA certificate's subject (or TSTInfo's tsa name). */
  readonly authority: string;
  /** The URL that answered (without credentials or query). */
  readonly url: string;
  /** Round trip to the TSA that answered, all attempts included (ms). */
  readonly tsaMs: number;
}

/** A failure of one TSA, for the log. */
export type TimestampLog = (message: string, fields?: Record<string, unknown>) => void;

/** A TSA answer we cannot use: that authority failed, the next is asked. */
const fail = (message: string): never => {
  throw new TimestampAuthorityError(message);
};

/** TimeStampReq { version 1, messageImprint { sha256, hash }, nonce, certReq TRUE } (RFC 3161 §2.4.1). */
export const encodeTimestampRequest = (hash: Buffer, nonce: Buffer): Buffer =>
  derSequence(
    VERSION_1,
    derSequence(SHA256_ALGORITHM, derOctetString(hash)),
    derUnsignedInteger(nonce),
    CERT_REQ_TRUE,
  );

const child = (buf: Buffer, node: DerNode | undefined, index: number, tag: number, what: string): DerNode => {
  if (!node) return fail(`${what}: missing`);
  const found = readDerChildren(buf, node)[index];
  if (found?.tag !== tag) return fail(`${what}: unexpected structure`);
  return found;
};

/** TSTInfo's genTime; one the shared reader cannot read makes the answer unusable (next TSA). */
const readGenTime = (token: Buffer, node: DerNode): Date => {
  try {
    return readTime(token, node);
  } catch (err) {
    if (err instanceof DerError) return fail('TSTInfo genTime: not a UTC GeneralizedTime');
    throw err;
  }
};

/** What a token's certificates say about its TSA: the subject and notAfter of its certificate. */
interface TsaCertificate {
  readonly subject?: string;
  /** ms since the epoch. */
  readonly notAfter?: number;
}

/** The TSA certificate from the token's certificates (the one for timeStamping). */
const readTsaCertificate = (token: Buffer, certs: DerNode): TsaCertificate => {
  const parsed: X509Certificate[] = [];
  for (const node of readDerChildren(token, certs)) {
    if (node.tag !== 0x30) continue;
    try {
      parsed.push(new X509Certificate(token.subarray(node.start, node.end)));
    } catch {
      // Not a plain certificate (an attribute certificate, say): not the TSA's.
    }
  }
  const tsa = parsed.find((c) => c.keyUsage?.includes(OID_TIME_STAMPING)) ?? parsed[0];
  if (!tsa) return {};
  const notAfter = Date.parse(tsa.validTo);
  return {
    subject: tsa.subject.replace(/\n/g, ', '),
    ...(Number.isNaN(notAfter) ? {} : { notAfter }),
  };
};

// A TSA sends the same certificates every time: they are read once (a few TSAs, a few entries).
const tsaCertificates = new Map<string, TsaCertificate>();
const MAX_AUTHORITIES = 32;

const tsaCertificateOf = (token: Buffer, signedData: DerNode): TsaCertificate => {
  const certs = readDerChildren(token, signedData).find((n) => n.tag === 0xa0);
  if (!certs) return {};
  const key = token.toString('base64', certs.start, certs.end);
  const known = tsaCertificates.get(key);
  if (known) return known;
  const read = readTsaCertificate(token, certs);
  if (tsaCertificates.size >= MAX_AUTHORITIES) tsaCertificates.clear();
  tsaCertificates.set(key, read);
  return read;
};

/**
 * Check a TimeStampResp (RFC 3161 §2.4.2): status granted, a SignedData token whose TSTInfo's
 * messageImprint is SHA-256 of `hash` and whose nonce is ours. Returns the token and what it says.
 * The token's signature is checked by verifiers (openssl ts -verify, pdfsig), not here.
 * `certificateNotAfter` (ms since the epoch) is when the TSA's certificate in the token expires.
 */
export const readTimestampResponse = (
  response: Buffer,
  hash: Buffer,
  nonce: Buffer,
): { token: Buffer; time: Date; authority: string; certificateNotAfter?: number } => {
  const resp = readDer(response, 0);
  if (resp.tag !== 0x30 || resp.end !== response.length) fail('TimeStampResp: not a DER SEQUENCE');
  const [statusInfo, tokenNode] = readDerChildren(response, resp);
  const status = child(response, statusInfo, 0, 0x02, 'PKIStatusInfo status');
  const statusValue = derContent(response, status);
  if (statusValue.length !== 1 || (statusValue[0] !== 0 && statusValue[0] !== 1)) {
    fail(`TSA refused: PKIStatus ${statusValue.toString('hex')}`);
  }
  if (tokenNode?.tag !== 0x30) return fail('TimeStampResp: granted without a token');
  const token = Buffer.from(response.subarray(tokenNode.start, tokenNode.end));
  const root = readDer(token, 0);
  const contentType = child(token, root, 0, 0x06, 'token contentType');
  if (!derContent(token, contentType).equals(SIGNED_DATA)) fail('token: not a SignedData');
  const explicit = child(token, root, 1, 0xa0, 'token content');
  const signedData = child(token, explicit, 0, 0x30, 'SignedData');
  const encap = child(token, signedData, 2, 0x30, 'encapContentInfo');
  const eContentType = child(token, encap, 0, 0x06, 'eContentType');
  if (!derContent(token, eContentType).equals(TST_INFO)) fail('token: content is not a TSTInfo');
  const eContent = child(token, child(token, encap, 1, 0xa0, 'eContent'), 0, 0x04, 'eContent');
  const tstInfo = readDer(token, eContent.contentStart);
  if (tstInfo.tag !== 0x30 || tstInfo.end !== eContent.end) fail('TSTInfo: not a DER SEQUENCE');
  const fields = readDerChildren(token, tstInfo);
  const imprint = child(token, tstInfo, 2, 0x30, 'TSTInfo messageImprint');
  const algorithm = child(token, child(token, imprint, 0, 0x30, 'imprint algorithm'), 0, 0x06, 'imprint OID');
  if (!derContent(token, algorithm).equals(SHA256_OID)) fail('TSTInfo messageImprint: not SHA-256');
  const hashed = child(token, imprint, 1, 0x04, 'imprint hash');
  if (!derContent(token, hashed).equals(hash)) fail('TSTInfo messageImprint: not our signature value');
  const genTime = child(token, tstInfo, 4, 0x18, 'TSTInfo genTime');
  const time = readGenTime(token, genTime);
  // After genTime: accuracy (SEQUENCE), ordering (BOOLEAN), nonce (INTEGER), tsa [0], extensions [1].
  const tsaNonce = fields.slice(5).find((n) => n.tag === 0x02);
  if (!tsaNonce || !integerMagnitude(derContent(token, tsaNonce)).equals(integerMagnitude(nonce))) {
    fail('TSTInfo nonce: missing or not ours');
  }
  const certificate = tsaCertificateOf(token, signedData);
  const authority = certificate.subject ?? 'unnamed time-stamping authority';
  return {
    token,
    time,
    authority,
    ...(certificate.notAfter === undefined ? {} : { certificateNotAfter: certificate.notAfter }),
  };
};

/**
 * A timestamper: `timestamp(signatureValue)` asks the TSAs in order for an RFC 3161 token over
 * SHA-256 of the signature value, each within its adapter's time limit, and answers the first usable one. When
 * none answers (down, slow, garbage, refusal) it throws `unavailable`: a local time is never used
 * in place of a timestamp.
 */
export const createTimestamper = (
  options: {
    /** Asked in order; the first usable answer wins. */
    readonly authorities: readonly TimestampAuthority[];
    /** Largest token accepted (the signature placeholder reserves this much for it). */
    readonly maxTokenBytes: number;
    /** Told of every request to an authority (provider, outcome, time) and of the TSA's certificate. */
    readonly observer?: LtvObserver;
  },
  log?: TimestampLog,
) => {
  const { authorities, maxTokenBytes, observer } = options;
  return async (signatureValue: Buffer): Promise<SignatureTimestamp> => {
    const hash = createHash('sha256').update(signatureValue).digest();
    // Positive 64-bit nonce: the top bit clear so that it never needs a sign byte.
    const nonce = randomBytes(8);
    nonce[0] = (nonce[0] ?? 0) & 0x7f;
    const request = encodeTimestampRequest(hash, nonce);
    const started = performance.now();
    for (const authority of authorities) {
      const attempt = performance.now();
      try {
        const body = await authority.request(request);
        const {
          token,
          time,
          authority: name,
          certificateNotAfter,
        } = readTimestampResponse(body, hash, nonce);
        if (token.length > maxTokenBytes) {
          fail(`token of ${token.length} bytes is larger than TSA_TOKEN_MAX_BYTES (${maxTokenBytes})`);
        }
        if (observer) {
          observer.request({
            kind: 'timestamp',
            provider: authority.provider,
            ok: true,
            seconds: (performance.now() - attempt) / 1000,
          });
          if (certificateNotAfter !== undefined) observer.timestampCertificate(certificateNotAfter);
        }
        return {
          token,
          time: time.toISOString(),
          authority: name,
          url: authority.url,
          tsaMs: Math.round(performance.now() - started),
        };
      } catch (err) {
        observer?.request({
          kind: 'timestamp',
          provider: authority.provider,
          ok: false,
          seconds: (performance.now() - attempt) / 1000,
        });
        const reason =
          err instanceof TimestampAuthorityError
            ? err.message
            : err instanceof Error
              ? `${err.name}: ${err.message}`
              : String(err);
        log?.('time-stamping authority did not answer usably', {
          tsa: authority.url,
          reason,
          ms: Math.round(performance.now() - attempt),
        });
      }
    }
    throw new ServiceError('unavailable', 'no time-stamping authority answered; retry');
  };
};

export type Timestamper = ReturnType<typeof createTimestamper>;

/** Attribute { id-aa-signatureTimeStampToken, SET { token } }, the SignerInfo's unsigned attribute. */
export const OID_SIGNATURE_TIME_STAMP_TOKEN = '1.2.840.113549.1.9.16.2.14';
export const timestampAttribute = (token: Buffer): Buffer =>
  derSequence(derOid(OID_SIGNATURE_TIME_STAMP_TOKEN), derElement(0x31, token));
