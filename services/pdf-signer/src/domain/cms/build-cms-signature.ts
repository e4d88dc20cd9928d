import { sign } from 'node:crypto';
import {
  derContext,
  derElement,
  derOctetString,
  derOid,
  derSequence,
  derSetOf,
  derSmallInteger,
  derTime,
} from '../der/encode-der';
import type { SigningIdentity } from './load-signing-identity';
import { timestampAttribute } from '../ltv/request-timestamp';

const OID_DATA = '1.2.840.113549.1.7.1';
const OID_SIGNED_DATA = '1.2.840.113549.1.7.2';
const OID_CONTENT_TYPE = '1.2.840.113549.1.9.3';
const OID_MESSAGE_DIGEST = '1.2.840.113549.1.9.4';
const OID_SIGNING_TIME = '1.2.840.113549.1.9.5';
const OID_SIGNING_CERTIFICATE_V2 = '1.2.840.113549.1.9.16.2.47';
const OID_SHA256 = '2.16.840.1.101.3.4.2.1';

// Encoded once: they are the same in every signature.
const DATA = derOid(OID_DATA);
const SIGNED_DATA = derOid(OID_SIGNED_DATA);
const CONTENT_TYPE = derOid(OID_CONTENT_TYPE);
const MESSAGE_DIGEST = derOid(OID_MESSAGE_DIGEST);
const SIGNING_TIME = derOid(OID_SIGNING_TIME);
const SIGNING_CERTIFICATE_V2 = derOid(OID_SIGNING_CERTIFICATE_V2);
const SHA256 = derSequence(derOid(OID_SHA256));
const VERSION_1 = derSmallInteger(1);

const attribute = (oid: Buffer, value: Buffer) => derSequence(oid, derSetOf(value));

/**
 * A detached CMS SignedData (RFC 5652) over a SHA-256 digest, as PDF's adbe.pkcs7.detached wants:
 * signed attributes contentType, signingTime, messageDigest and signingCertificateV2 (which binds the
 * certificate to the signature), signed with the identity's key by Node's crypto. With `timestamp`, the
 * signature value is sent to it and the RFC 3161 token it answers becomes the unsigned attribute
 * id-aa-signatureTimeStampToken (PAdES B-T).
 */
export const buildCmsSignature = async (options: {
  identity: SigningIdentity;
  /** SHA-256 of the signed content (for a PDF: the bytes its /ByteRange names). */
  digest: Buffer;
  signingTime: Date;
  /** A TimeStampToken (DER) over the signature value. */
  timestamp?: (signatureValue: Buffer) => Promise<Buffer>;
}): Promise<Buffer> => {
  const { identity, digest, signingTime } = options;
  const attributes = [
    attribute(CONTENT_TYPE, DATA),
    attribute(SIGNING_TIME, derTime(signingTime)),
    attribute(MESSAGE_DIGEST, derOctetString(digest)),
    // SigningCertificateV2 { certs SEQUENCE OF ESSCertIDv2 { certHash } } (hash algorithm defaults to SHA-256).
    attribute(
      SIGNING_CERTIFICATE_V2,
      derSequence(derSequence(derSequence(derOctetString(identity.certificateSha256)))),
    ),
  ].sort((a, b) => Buffer.compare(a, b));
  // The signature covers the attributes encoded as a SET OF; in SignerInfo they are [0] IMPLICIT.
  const signature = sign('sha256', derElement(0x31, ...attributes), identity.privateKey);
  const token = options.timestamp ? await options.timestamp(signature) : undefined;
  const signerInfo = derSequence(
    VERSION_1,
    identity.issuerAndSerialNumber,
    SHA256,
    derContext(0, ...attributes),
    identity.signatureAlgorithm,
    derOctetString(signature),
    // unsignedAttrs [1] IMPLICIT SET OF Attribute.
    ...(token ? [derContext(1, timestampAttribute(token))] : []),
  );
  const signedData = derSequence(
    VERSION_1,
    derSetOf(SHA256),
    derSequence(DATA),
    derContext(0, ...identity.certificates),
    derSetOf(signerInfo),
  );
  return derSequence(SIGNED_DATA, derContext(0, signedData));
};
