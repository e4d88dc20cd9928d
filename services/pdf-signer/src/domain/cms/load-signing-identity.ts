import { X509Certificate, createHash, createPrivateKey, generateKeyPairSync, randomBytes } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import forge from 'node-forge';
import { derNull, derOid, derSequence } from '../der/encode-der';
import { readDer, readDerChildren } from '../der/read-der';

/** Common name of the certificate made up when no signing key is configured. */
export const DEVELOPMENT_CERT_CN = 'E-Signature Service (development)';

/** The key and certificates that seal every signed PDF, parsed once at start-up. */
export interface SigningIdentity {
  readonly privateKey: KeyObject;
  /** DER certificates, the signer's first, then any chain it came with. */
  readonly certificates: readonly Buffer[];
  /** DER IssuerAndSerialNumber of the signer's certificate (the CMS signer identifier). */
  readonly issuerAndSerialNumber: Buffer;
  /** DER AlgorithmIdentifier of the signature (RSA PKCS#1 v1.5 or ECDSA, with SHA-256). */
  readonly signatureAlgorithm: Buffer;
  /** SHA-256 of the signer's certificate (DER). */
  readonly certificateSha256: Buffer;
  /** SHA-256 fingerprint of the signer's certificate as `AB:CD:…`. */
  readonly fingerprint256: string;
  /** Subject of the signer's certificate, one `key=value` per line. */
  readonly subject: string;
  /** True when this is the self-signed certificate made up for development. */
  readonly development: boolean;
}

/** PEM text of a private key and its certificate (optionally followed by its chain). */
export interface SigningMaterial {
  readonly keyPem: string;
  readonly certPem: string;
  readonly keyPassphrase?: string;
}

const OID_RSA_ENCRYPTION = '1.2.840.113549.1.1.1';
const OID_ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';

const splitPemCertificates = (pem: string): X509Certificate[] => {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error('signing certificate: no PEM certificate found');
  return blocks.map((block) => new X509Certificate(block));
};

/** IssuerAndSerialNumber ::= SEQUENCE { issuer Name, serialNumber INTEGER }, copied from the certificate. */
const issuerAndSerialOf = (certDer: Buffer): Buffer => {
  const cert = readDer(certDer, 0);
  const [tbs] = readDerChildren(certDer, cert);
  if (!tbs) throw new Error('signing certificate: malformed');
  const fields = readDerChildren(certDer, tbs);
  // The optional explicit [0] version comes first when present.
  const rest = fields[0]?.tag === 0xa0 ? fields.slice(1) : fields;
  const [serial, , issuer] = rest;
  if (!serial || !issuer || serial.tag !== 0x02 || issuer.tag !== 0x30) {
    throw new Error('signing certificate: malformed');
  }
  return derSequence(certDer.subarray(issuer.start, issuer.end), certDer.subarray(serial.start, serial.end));
};

const signatureAlgorithmFor = (key: KeyObject): Buffer => {
  switch (key.asymmetricKeyType) {
    case 'rsa':
      return derSequence(derOid(OID_RSA_ENCRYPTION), derNull());
    case 'ec':
      return derSequence(derOid(OID_ECDSA_WITH_SHA256));
    default:
      throw new Error(
        `signing key: ${key.asymmetricKeyType ?? 'unknown'} keys are not supported (use RSA or EC)`,
      );
  }
};

/** A self-signed RSA-2048 certificate for development and tests; never for production. */
export const generateDevelopmentMaterial = (): SigningMaterial => {
  // Node generates the key in native code (forge would take seconds); forge only builds the certificate.
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const forgeKey = forge.pki.privateKeyFromPem(keyPem);
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.rsa.setPublicKey(forgeKey.n, forgeKey.e);
  // A positive serial: clear the top bit of the first byte.
  const serial = randomBytes(16);
  serial[0] = (serial[0] ?? 0) & 0x7f;
  cert.serialNumber = serial.toString('hex');
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 24 * 3600 * 1000);
  cert.validity.notAfter = new Date(now + 5 * 365 * 24 * 3600 * 1000);
  const name = [
    { name: 'commonName', value: DEVELOPMENT_CERT_CN },
    { name: 'organizationName', value: 'E-Signature Service' },
  ];
  cert.setSubject(name);
  cert.setIssuer(name);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  cert.sign(forgeKey, forge.md.sha256.create());
  return { keyPem, certPem: forge.pki.certificateToPem(cert) };
};

/**
 * Parse the signing key and certificate once. Without material, makes up a self-signed development
 * certificate (CN "E-Signature Service (development)") and says so through `warn`.
 */
export const loadSigningIdentity = (
  material: SigningMaterial | undefined,
  warn: (message: string) => void = () => undefined,
  /** `material` is a development certificate made up earlier (shared by the signing workers). */
  madeUp = false,
): SigningIdentity => {
  const development = material === undefined || madeUp;
  if (material === undefined) {
    warn(
      'No SIGNING_KEY_PEM/SIGNING_CERT_PEM (or *_FILE) configured: signing with a self-signed development ' +
        'certificate generated at start-up. Configure a real key and certificate in production.',
    );
  }
  const { keyPem, certPem, keyPassphrase } = material ?? generateDevelopmentMaterial();
  const privateKey = createPrivateKey({ key: keyPem, format: 'pem', passphrase: keyPassphrase });
  const certs = splitPemCertificates(certPem);
  const [leaf] = certs;
  if (!leaf) throw new Error('signing certificate: no PEM certificate found');
  if (!leaf.checkPrivateKey(privateKey)) {
    throw new Error('signing key and certificate do not match (the certificate is for another key)');
  }
  const certificates = certs.map((c) => c.raw);
  return {
    privateKey,
    certificates,
    issuerAndSerialNumber: issuerAndSerialOf(leaf.raw),
    signatureAlgorithm: signatureAlgorithmFor(privateKey),
    certificateSha256: createHash('sha256').update(leaf.raw).digest(),
    fingerprint256: leaf.fingerprint256,
    subject: leaf.subject,
    development,
  };
};
