import { createHash, verify as verifySignature, X509Certificate } from 'node:crypto';
import type { TCertificateFacts, TPdfVerifyReply, TSignatureReport, TTimestampFacts } from '@esign/contracts';
import {
  DerError,
  derContent,
  integerMagnitude,
  readDer,
  readDerChildren,
  readOid,
  readTime,
} from '../der/read-der';
import type { DerNode } from '../der/read-der';

/**
 * Verification of every signature in a PDF, with no PDF library: signatures are found by their
 * /ByteRange, which must name exactly the gap of their /Contents. For each: the CMS (RFC 5652) is
 * read with our DER reader, the digest of the covered bytes is compared with the messageDigest
 * attribute, the signature over the signed attributes is checked with the embedded certificate's key
 * (Node's crypto), the RFC 3161 token in the unsigned attributes is checked the same way, and what
 * was appended after the signed revision is described from its object dictionaries.
 *
 * Trust (whether the certificate chains to a CA the reader trusts) is not decided here: the report
 * gives the certificate and whether it is ours; a verifier decides whom it trusts.
 */

const OID = {
  signedData: '1.2.840.113549.1.7.2',
  tstInfo: '1.2.840.113549.1.9.16.1.4',
  messageDigest: '1.2.840.113549.1.9.4',
  signingTime: '1.2.840.113549.1.9.5',
  signatureTimeStamp: '1.2.840.113549.1.9.16.2.14',
} as const;

const DIGESTS: Record<string, string> = {
  '1.3.14.3.2.26': 'sha1',
  '2.16.840.1.101.3.4.2.1': 'sha256',
  '2.16.840.1.101.3.4.2.2': 'sha384',
  '2.16.840.1.101.3.4.2.3': 'sha512',
};

/** Signature algorithms: the hash they imply (when they name one) or `key` (the digest algorithm decides). */
const SIGNATURE_ALGORITHMS: Record<string, string> = {
  '1.2.840.113549.1.1.1': 'key',
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.2.1': 'key',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
  '1.3.101.112': 'none',
};

/** Appended bytes described per signature, at most this many (the rest is said to be unread). */
const MAX_INSPECTED_BYTES = 1024 * 1024;
/** Signatures examined per file. */
const MAX_SIGNATURES = 50;

class CmsError extends Error {}

const children = (buf: Buffer, node: DerNode | undefined, what: string): DerNode[] => {
  if (!node) throw new CmsError(`${what}: missing`);
  return readDerChildren(buf, node);
};

/**
 * A time as ISO 8601, or null when it cannot be read. The shared reader throws on a malformed time;
 * here that is a fact to report (no signing time, no timestamp time), never a reason to stop
 * checking the signature: a verdict is owed for whatever file is handed in.
 */
const isoTimeOrNull = (buf: Buffer, node: DerNode): string | null => {
  try {
    return readTime(buf, node).toISOString();
  } catch (err) {
    if (err instanceof DerError) return null;
    throw err;
  }
};

/** The parts of a CMS SignedData a verifier needs, as offsets into `buf`. */
interface SignedDataParts {
  readonly buf: Buffer;
  readonly certificates: X509Certificate[];
  readonly eContentType: string;
  /** The encapsulated content (a timestamp token's TSTInfo), when there is one. */
  readonly eContent?: Buffer;
  readonly signerInfo: {
    readonly serial: string | undefined;
    readonly digestAlgorithm: string;
    readonly signedAttrs?: DerNode;
    readonly signatureAlgorithm: string;
    readonly signature: Buffer;
    readonly unsignedAttrs?: DerNode;
  };
}

const readSignedData = (buf: Buffer): SignedDataParts => {
  const root = readDer(buf, 0);
  if (root.tag !== 0x30) throw new CmsError('not a CMS ContentInfo');
  const [type, explicit] = readDerChildren(buf, root);
  if (!type || type.tag !== 0x06 || readOid(buf, type) !== OID.signedData) {
    throw new CmsError('not a CMS SignedData');
  }
  const [signedData] = children(buf, explicit, 'SignedData');
  const fields = children(buf, signedData, 'SignedData');
  const encap = fields[2];
  const encapFields = children(buf, encap, 'encapContentInfo');
  const eContentType = encapFields[0] ? readOid(buf, encapFields[0]) : '';
  let eContent: Buffer | undefined;
  if (encapFields[1]?.tag === 0xa0) {
    const [octets] = readDerChildren(buf, encapFields[1]);
    if (octets?.tag === 0x04) eContent = derContent(buf, octets);
  }
  const certificates: X509Certificate[] = [];
  let signerInfos: DerNode | undefined;
  for (const node of fields.slice(3)) {
    if (node.tag === 0xa0) {
      for (const cert of readDerChildren(buf, node)) {
        if (cert.tag !== 0x30) continue;
        try {
          certificates.push(new X509Certificate(buf.subarray(cert.start, cert.end)));
        } catch {
          // An attribute certificate or other kind: not a signer's.
        }
      }
    } else if (node.tag === 0x31) signerInfos = node;
  }
  const [signerInfo] = children(buf, signerInfos, 'signerInfos');
  const info = children(buf, signerInfo, 'SignerInfo');
  const [, sid, digestAlgorithm, ...rest] = info;
  let serial: string | undefined;
  if (sid?.tag === 0x30) {
    const serialNode = readDerChildren(buf, sid)[1];
    // Hex, upper case, as X509Certificate.serialNumber gives it.
    if (serialNode?.tag === 0x02)
      serial = integerMagnitude(derContent(buf, serialNode)).toString('hex').toUpperCase();
  }
  const signedAttrs = rest[0]?.tag === 0xa0 ? rest.shift() : undefined;
  const [signatureAlgorithm, signature, unsignedAttrs] = rest;
  if (!digestAlgorithm || !signatureAlgorithm || signature?.tag !== 0x04) {
    throw new CmsError('SignerInfo: malformed');
  }
  const algorithmOf = (node: DerNode) => {
    const [oid] = readDerChildren(buf, node);
    return oid ? readOid(buf, oid) : '';
  };
  return {
    buf,
    certificates,
    eContentType,
    ...(eContent ? { eContent } : {}),
    signerInfo: {
      serial,
      digestAlgorithm: algorithmOf(digestAlgorithm),
      ...(signedAttrs ? { signedAttrs } : {}),
      signatureAlgorithm: algorithmOf(signatureAlgorithm),
      signature: derContent(buf, signature),
      ...(unsignedAttrs?.tag === 0xa1 ? { unsignedAttrs } : {}),
    },
  };
};

/** Attribute values by OID from a [0] or [1] IMPLICIT SET OF Attribute. */
const attributesOf = (buf: Buffer, node: DerNode | undefined): Map<string, DerNode[]> => {
  const map = new Map<string, DerNode[]>();
  if (!node) return map;
  for (const attr of readDerChildren(buf, node)) {
    const [type, values] = readDerChildren(buf, attr);
    if (!type || !values) continue;
    map.set(readOid(buf, type), readDerChildren(buf, values));
  }
  return map;
};

const signerCertificate = (parts: SignedDataParts): X509Certificate | undefined =>
  parts.certificates.find((c) => c.serialNumber.toUpperCase() === parts.signerInfo.serial) ??
  parts.certificates[0];

/**
 * Check a SignerInfo: its messageDigest attribute against `digest` of the content, and its signature
 * over the signed attributes with the certificate's public key.
 */
const checkSignerInfo = (
  parts: SignedDataParts,
  digestOf: (algorithm: string) => Buffer | undefined,
): {
  certificate: X509Certificate | undefined;
  digestMatches: boolean;
  signatureVerifies: boolean;
  signingTime: string | null;
  problems: string[];
} => {
  const { buf, signerInfo } = parts;
  const problems: string[] = [];
  const certificate = signerCertificate(parts);
  if (!certificate) problems.push('the signature carries no certificate to check it with');
  const hashName = DIGESTS[signerInfo.digestAlgorithm];
  if (!hashName) problems.push(`unsupported digest algorithm ${signerInfo.digestAlgorithm}`);
  const attrs = attributesOf(buf, signerInfo.signedAttrs);
  const signingTimeNode = attrs.get(OID.signingTime)?.[0];
  const signingTime = signingTimeNode ? isoTimeOrNull(buf, signingTimeNode) : null;
  let digestMatches = false;
  if (!signerInfo.signedAttrs) {
    problems.push('no signed attributes (not supported by this verifier)');
  } else if (hashName) {
    const md = attrs.get(OID.messageDigest)?.[0];
    const digest = digestOf(hashName);
    digestMatches = md?.tag === 0x04 && digest !== undefined && derContent(buf, md).equals(digest);
    if (!md) problems.push('no messageDigest attribute');
    else if (digest && !digestMatches) {
      problems.push('the signed bytes do not match the digest in the signature: they were changed');
    }
  }
  let signatureVerifies = false;
  const kind = SIGNATURE_ALGORITHMS[signerInfo.signatureAlgorithm];
  if (!kind) problems.push(`unsupported signature algorithm ${signerInfo.signatureAlgorithm}`);
  if (certificate && kind && hashName && signerInfo.signedAttrs) {
    // The signature covers the attributes as a SET OF (tag 0x31), not as the [0] they are stored in.
    const attrsDer = Buffer.from(buf.subarray(signerInfo.signedAttrs.start, signerInfo.signedAttrs.end));
    attrsDer[0] = 0x31;
    try {
      signatureVerifies = verifySignature(
        kind === 'none' ? null : kind === 'key' ? hashName : kind,
        attrsDer,
        certificate.publicKey,
        signerInfo.signature,
      );
    } catch {
      signatureVerifies = false;
    }
    if (!signatureVerifies) problems.push("the signature value does not verify with the certificate's key");
  }
  return { certificate, digestMatches, signatureVerifies, signingTime, problems };
};

const certificateFacts = (cert: X509Certificate): TCertificateFacts => {
  let selfSigned = false;
  try {
    selfSigned = cert.subject === cert.issuer && cert.verify(cert.publicKey);
  } catch {
    selfSigned = false;
  }
  const iso = (text: string) => {
    const t = Date.parse(text);
    return Number.isNaN(t) ? new Date(0).toISOString() : new Date(t).toISOString();
  };
  return {
    subject: cert.subject.replace(/\n/g, ', '),
    issuer: cert.issuer.replace(/\n/g, ', '),
    serialNumber: cert.serialNumber.toUpperCase(),
    validFrom: iso(cert.validFrom),
    validTo: iso(cert.validTo),
    fingerprint256: cert.fingerprint256,
    selfSigned,
  };
};

const commonName = (cert: X509Certificate): string => {
  const cn = /(?:^|\n)CN=([^\n]*)/.exec(cert.subject)?.[1];
  return cn ?? cert.subject.replace(/\n/g, ', ');
};

/** An RFC 3161 token: its TSTInfo's imprint against `imprintOf`, and the TSA's signature over it. */
const checkTimestampToken = (
  token: Buffer,
  imprintOf: (algorithm: string) => Buffer | undefined,
): TTimestampFacts => {
  const problems: string[] = [];
  try {
    const parts = readSignedData(token);
    if (parts.eContentType !== OID.tstInfo || !parts.eContent) {
      throw new CmsError('the token does not hold a TSTInfo');
    }
    const tst = parts.eContent;
    const tstRoot = readDer(tst, 0);
    const fields = readDerChildren(tst, tstRoot);
    const [imprintAlg, imprintHash] = children(tst, fields[2], 'messageImprint');
    const algOid = imprintAlg ? readDerChildren(tst, imprintAlg)[0] : undefined;
    const imprintHashName = algOid ? DIGESTS[readOid(tst, algOid)] : undefined;
    const expected = imprintHashName ? imprintOf(imprintHashName) : undefined;
    const imprintMatches =
      imprintHash?.tag === 0x04 && expected !== undefined && derContent(tst, imprintHash).equals(expected);
    if (!imprintMatches) problems.push('the timestamp was not made over this signature or content');
    const time = fields[4]?.tag === 0x18 ? isoTimeOrNull(tst, fields[4]) : null;
    const check = checkSignerInfo(parts, (name) => createHash(name).update(tst).digest());
    problems.push(...check.problems.map((p) => `timestamp: ${p}`));
    return {
      time,
      authority: check.certificate ? check.certificate.subject.replace(/\n/g, ', ') : null,
      signatureValid: check.digestMatches && check.signatureVerifies,
      imprintMatches,
      problems,
    };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      time: null,
      authority: null,
      signatureValid: false,
      imprintMatches: false,
      problems: [`the timestamp token cannot be read (${reason})`],
    };
  }
};

/** What one object of an update is, in words; undefined for bookkeeping (xref streams). */
const describeObject = (dict: string, hasStream: boolean): string | undefined => {
  const type = /\/Type\s*\/(\w+)/.exec(dict)?.[1];
  const subtype = /\/Subtype\s*\/(\w+)/.exec(dict)?.[1];
  if (/\/ByteRange/.test(dict) || type === 'Sig' || type === 'DocTimeStamp') {
    return /ETSI\.RFC3161/.test(dict) ? 'a document timestamp' : 'another signature';
  }
  if (type === 'XRef') return undefined;
  if (type === 'ObjStm') return 'compressed objects (not inspected)';
  if (type === 'Annot' || (subtype && /\/Rect\s*\[/.test(dict) && !hasStream)) {
    if (subtype === 'Widget') {
      return /\/FT\s*\/Sig/.test(dict) ? 'a signature field' : 'a form field (its widget, value or look)';
    }
    return `an annotation (${subtype ?? 'unknown kind'})`;
  }
  if (/\/FT\s*\/\w+/.test(dict) || (/\/T\s*[(<]/.test(dict) && /\/V\s/.test(dict))) {
    return "a form field's value";
  }
  if (type === 'Page') return 'a page (its content or annotations)';
  if (type === 'Pages') return 'the page tree (pages added or removed)';
  if (type === 'DSS') return 'long-term validation data (DSS)';
  if (type === 'Catalog')
    return /\/AcroForm/.test(dict) ? 'the document catalog (its form)' : 'the document catalog';
  if (/\/Fields\s*\[/.test(dict)) return 'the form (its list of fields)';
  if (type === 'Metadata') return 'the XMP metadata';
  if (type === 'Font' || type === 'FontDescriptor') return 'a font';
  if (type === 'XObject' || subtype === 'Image' || subtype === 'Form') return 'an image or drawing (XObject)';
  if (/\/(VRI|Certs|OCSPs|CRLs)\b/.test(dict)) return 'long-term validation data (DSS)';
  if (/\/(Producer|ModDate|CreationDate|Creator)\b/.test(dict)) return 'the document information (Info)';
  if (hasStream) return 'a content stream (text or graphics drawn on a page)';
  return 'other objects';
};

/** Describe the objects of the bytes appended after a signed revision. */
const describeAppended = (tail: Buffer): string[] => {
  const inspected = tail.subarray(0, MAX_INSPECTED_BYTES).toString('latin1');
  const found: string[] = [];
  const objects = /(\d+)\s+(\d+)\s+obj\b([\s\S]*?)\bendobj\b/g;
  const parsed: { num: string; dict: string; hasStream: boolean; update: number }[] = [];
  // Which update (counted by the %%EOF before it) each object belongs to.
  const eofs: number[] = [];
  for (let at = inspected.indexOf('%%EOF'); at >= 0; at = inspected.indexOf('%%EOF', at + 5)) eofs.push(at);
  const docTimestampUpdates = new Set<number>();
  for (let m = objects.exec(inspected); m; m = objects.exec(inspected)) {
    const body = m[3] ?? '';
    const streamAt = body.search(/\bstream\r?\n/);
    const dict = streamAt >= 0 ? body.slice(0, streamAt) : body;
    const update = eofs.filter((at) => at < m.index).length;
    if (/\/ByteRange/.test(dict) && /ETSI\.RFC3161/.test(dict)) docTimestampUpdates.add(update);
    parsed.push({ num: m[1] ?? '', dict, hasStream: streamAt >= 0, update });
  }
  // Streams a DSS of the same update lists (certificates, OCSP answers, CRLs) are validation data too.
  const dssMembers = new Set<string>();
  const dssDicts = new Set<string>();
  for (const { num, dict } of parsed) {
    if (!/\/Type\s*\/DSS\b/.test(dict) && !/\/(Certs|OCSPs|CRLs)\s*\[/.test(dict)) continue;
    dssDicts.add(num);
    for (const list of dict.matchAll(/\/(?:Certs|OCSPs|CRLs)\s*\[([^\]]*)\]/g)) {
      for (const ref of (list[1] ?? '').matchAll(/(\d+)\s+\d+\s+R/g)) dssMembers.add(ref[1] ?? '');
    }
  }
  for (const { num, dict, hasStream, update } of parsed) {
    // The catalog rewritten only to point to this update's DSS counts as part of it (its other entries
    // are not compared with the earlier catalog's: a limit of this description).
    const catalogOfDss =
      /\/Type\s*\/Catalog\b/.test(dict) && dssDicts.has(/\/DSS\s+(\d+)\s+\d+\s+R/.exec(dict)?.[1] ?? '');
    const what =
      dssMembers.has(num) || catalogOfDss
        ? 'long-term validation data (DSS)'
        : describeObject(dict, hasStream);
    // An update that adds a document timestamp also adds its widget and rewrites the page's
    // annotations and the form's fields to hold it: those count as part of it (the page's other
    // entries are not compared with the earlier page's: a limit of this description).
    const bookkeeping =
      docTimestampUpdates.has(update) &&
      (what === 'a signature field' ||
        what === 'a page (its content or annotations)' ||
        what === 'the form (its list of fields)' ||
        what === 'the document catalog (its form)');
    if (what && !bookkeeping && !found.includes(what)) found.push(what);
  }
  const sawObject = parsed.length > 0;
  if (tail.length > MAX_INSPECTED_BYTES)
    found.push(`more than ${MAX_INSPECTED_BYTES} bytes (not all inspected)`);
  if (!sawObject && /\S/.test(inspected.replace(/%%EOF/g, '').replaceAll('\u0000', ''))) {
    found.push(`${tail.length} bytes that are not a PDF update`);
  }
  return found;
};

/** A signature dictionary found in the file: its ByteRange, its /Contents and its other keys. */
interface FoundSignature {
  readonly range: readonly [number, number, number, number];
  readonly contents?: Buffer;
  readonly dict: string;
  readonly problems: string[];
}

const findSignatures = (file: Buffer): FoundSignature[] => {
  const found: FoundSignature[] = [];
  const seen = new Set<string>();
  for (let at = file.indexOf('/ByteRange'); at >= 0 && found.length < MAX_SIGNATURES;) {
    const next = file.indexOf('/ByteRange', at + 10);
    const m = /^\/ByteRange\s*\[\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*\]/.exec(
      file.toString('latin1', at, Math.min(file.length, at + 80)),
    );
    if (m) {
      const range = [Number(m[1]), Number(m[2]), Number(m[3]), Number(m[4])] as const;
      const key = range.join(' ');
      if (!seen.has(key)) {
        seen.add(key);
        found.push(readSignatureAt(file, at, range));
      }
    }
    at = next;
  }
  return found;
};

const readSignatureAt = (
  file: Buffer,
  at: number,
  range: readonly [number, number, number, number],
): FoundSignature => {
  const problems: string[] = [];
  const objStart = Math.max(0, file.lastIndexOf(' obj', at));
  const endObj = file.indexOf('endobj', at);
  const objEnd = endObj < 0 ? file.length : endObj;
  const [a, b, c] = range;
  const gapStart = a + b;
  const gapEnd = c;
  const gapInside = a === 0 && gapStart > objStart && gapEnd <= objEnd && gapStart < gapEnd;
  let contents: Buffer | undefined;
  let dict: string;
  if (gapInside && file[gapStart] === 0x3c && file[gapEnd - 1] === 0x3e) {
    const hex = file.toString('latin1', gapStart + 1, gapEnd - 1).replace(/\s+/g, '');
    contents = /^[0-9a-fA-F]*$/.test(hex) ? Buffer.from(hex.length % 2 ? `${hex}0` : hex, 'hex') : undefined;
    dict = file.toString('latin1', objStart, gapStart) + file.toString('latin1', gapEnd, objEnd);
  } else {
    problems.push(
      'its /ByteRange does not leave out exactly its own /Contents: it was not made for this file',
    );
    dict = file.toString('latin1', objStart, Math.min(objEnd, objStart + 4096));
    // Read the /Contents where it is, to say at least who signed.
    const hex = /\/Contents\s*<([0-9a-fA-F\s]*)>/.exec(file.toString('latin1', objStart, objEnd))?.[1];
    if (hex) contents = Buffer.from(hex.replace(/\s+/g, ''), 'hex');
  }
  return { range, ...(contents ? { contents } : {}), dict, problems };
};

/** `D:YYYYMMDDHHmmSS+hh'mm'` to ISO 8601, or null. */
const pdfDate = (text: string | undefined): string | null => {
  if (!text) return null;
  const m = /^D:(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?/.exec(text);
  if (!m) return null;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', tz] = m;
  let offset = 0;
  if (tz && tz !== 'Z') {
    const sign = tz.startsWith('-') ? -1 : 1;
    const digits = tz.replace(/[^0-9]/g, '');
    offset = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
  }
  const t =
    Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) - offset * 60_000;
  return Number.isNaN(t) ? null : new Date(t).toISOString();
};

const EOF_MARK = Buffer.from('%%EOF');

const countUpdates = (file: Buffer, from: number): number => {
  let count = 0;
  for (let at = file.indexOf(EOF_MARK, from); at >= 0; at = file.indexOf(EOF_MARK, at + 5)) count++;
  return count;
};

const MAX_REVISIONS = 64;

/** Each prefix of the file that ends with %%EOF (and its line end), hashed in one pass. */
const revisionsOf = (file: Buffer): { end: number; sha256: string }[] => {
  const ends: number[] = [];
  for (let at = file.indexOf(EOF_MARK); at >= 0; at = file.indexOf(EOF_MARK, at + 5)) {
    let end = at + 5;
    if (file[end] === 0x0d) end++;
    if (file[end] === 0x0a) end++;
    ends.push(end);
  }
  const kept = ends.slice(-MAX_REVISIONS);
  const hash = createHash('sha256');
  let done = 0;
  return kept.map((end) => {
    hash.update(file.subarray(done, end));
    done = end;
    return { end, sha256: `sha256:${hash.copy().digest('hex')}` };
  });
};

export interface VerifyPdfOptions {
  /** SHA-256 fingerprint (`AB:CD:…`) of this service's sealing certificate. */
  readonly ownFingerprint256?: string;
}

/** Check every signature in `file` and say what was changed after each. */
export const verifyPdf = (file: Buffer, options: VerifyPdfOptions = {}): TPdfVerifyReply => {
  const head = file.subarray(0, 1024).indexOf('%PDF-');
  // A PDF ends with %%EOF (and a line end, or a little padding): anything else was cut off or added.
  const lastEof = file.lastIndexOf(EOF_MARK);
  const looksLikePdf =
    head >= 0 &&
    lastEof >= 0 &&
    file.length - lastEof <= 64 + 5 &&
    file.toString('latin1', lastEof + 5).trim() === '';
  const problems: string[] = [];
  if (head < 0) problems.push('this is not a PDF file');
  else if (!looksLikePdf) {
    problems.push(
      'the file does not end with %%EOF: it was truncated, or bytes were added that are not a PDF update',
    );
  }
  const signatures = findSignatures(file).map((sig, i) => checkSignature(file, sig, i + 1, options));
  if (signatures.length === 0 && head >= 0) problems.push('the file has no digital signature');
  return { size: file.length, looksLikePdf, signatures, revisions: revisionsOf(file), problems };
};

const checkSignature = (
  file: Buffer,
  sig: FoundSignature,
  index: number,
  options: VerifyPdfOptions,
): TSignatureReport => {
  const problems = [...sig.problems];
  const [a, b, c, d] = sig.range;
  const end = c + d;
  const truncated = end > file.length || a + b > file.length;
  if (truncated) {
    problems.push(
      `the file ends at byte ${file.length}, before the end of what was signed (${end}): it was truncated`,
    );
  }
  const subFilter = /\/SubFilter\s*\/([\w.]+)/.exec(sig.dict)?.[1] ?? null;
  const documentTimestamp = subFilter === 'ETSI.RFC3161' || /\/Type\s*\/DocTimeStamp/.test(sig.dict);
  const digests = new Map<string, Buffer>();
  const digestOf = (name: string): Buffer | undefined => {
    if (truncated) return undefined;
    let digest = digests.get(name);
    if (!digest) {
      digest = createHash(name)
        .update(file.subarray(a, a + b))
        .update(file.subarray(c, end))
        .digest();
      digests.set(name, digest);
    }
    return digest;
  };
  const rest = truncated ? Buffer.alloc(0) : file.subarray(end);
  // Trailing whitespace (or NUL padding) after the signed range changes nothing a reader shows.
  const whitespaceOnly = rest.length <= 64 && rest.toString('latin1').replaceAll('\u0000', '').trim() === '';
  const coversWholeFile = !truncated && whitespaceOnly;
  const updatesAfter = coversWholeFile || truncated ? 0 : countUpdates(file, end);
  const changesAfter = coversWholeFile || truncated ? [] : describeAppended(rest);
  const base = {
    index,
    subFilter,
    coversWholeFile,
    signedBytes: Math.min(end, file.length),
    revisionHash: truncated
      ? null
      : `sha256:${createHash('sha256').update(file.subarray(0, end)).digest('hex')}`,
    updatesAfter,
    changesAfter,
  };
  const claimedTime = pdfDate(/\/M\s*\((D:[^)]*)\)/.exec(sig.dict)?.[1]);
  if (!sig.contents) {
    return {
      ...base,
      type: documentTimestamp ? 'document-timestamp' : 'signature',
      signer: null,
      signingTime: claimedTime,
      certificate: null,
      sealedByThisService: false,
      cryptographicallyValid: false,
      digestMatches: false,
      signatureVerifies: false,
      timestamp: null,
      problems: [...problems, 'the signature value (/Contents) cannot be read'],
    };
  }
  const cms = sig.contents;
  if (documentTimestamp) {
    const ts = checkTimestampToken(cms, digestOf);
    let certificate: X509Certificate | undefined;
    try {
      certificate = signerCertificate(readSignedData(cms));
    } catch {
      certificate = undefined;
    }
    problems.push(...ts.problems);
    const valid = ts.imprintMatches && ts.signatureValid && sig.problems.length === 0 && !truncated;
    return {
      ...base,
      type: 'document-timestamp',
      signer: certificate ? commonName(certificate) : ts.authority,
      signingTime: ts.time,
      certificate: certificate ? certificateFacts(certificate) : null,
      sealedByThisService: false,
      cryptographicallyValid: valid,
      digestMatches: ts.imprintMatches,
      signatureVerifies: ts.signatureValid,
      timestamp: ts,
      problems,
    };
  }
  try {
    const parts = readSignedData(cms);
    const check = checkSignerInfo(parts, digestOf);
    problems.push(...check.problems);
    const tokenNode = attributesOf(parts.buf, parts.signerInfo.unsignedAttrs).get(
      OID.signatureTimeStamp,
    )?.[0];
    const timestamp = tokenNode
      ? checkTimestampToken(Buffer.from(cms.subarray(tokenNode.start, tokenNode.end)), (name) =>
          createHash(name).update(parts.signerInfo.signature).digest(),
        )
      : null;
    const { certificate } = check;
    const facts = certificate ? certificateFacts(certificate) : null;
    return {
      ...base,
      type: 'signature',
      signer: certificate ? commonName(certificate) : null,
      signingTime: check.signingTime ?? claimedTime,
      certificate: facts,
      sealedByThisService:
        facts !== null &&
        options.ownFingerprint256 !== undefined &&
        facts.fingerprint256 === options.ownFingerprint256,
      cryptographicallyValid:
        check.digestMatches && check.signatureVerifies && sig.problems.length === 0 && !truncated,
      digestMatches: check.digestMatches,
      signatureVerifies: check.signatureVerifies,
      timestamp,
      problems,
    };
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    return {
      ...base,
      type: 'signature',
      signer: null,
      signingTime: claimedTime,
      certificate: null,
      sealedByThisService: false,
      cryptographicallyValid: false,
      digestMatches: false,
      signatureVerifies: false,
      timestamp: null,
      problems: [...problems, `the signature cannot be read (${reason})`],
    };
  }
};
