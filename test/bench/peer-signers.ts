/**
 * The signers `bench:peers` and `bench:instructions` compare, built the same way for both: ours
 * (`createSigner().sign`, what the `pdf.sign` handler calls), `@libpdf/core` and `@signpdf` (with
 * pdf-lib's placeholder), on the same RSA-2048 certificate (PEM for ours, PKCS#12 for the peers).
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { PDFDocument } from 'pdf-lib';

export const PEERS = ['ours', 'libpdf', 'signpdf'] as const;
export type Peer = (typeof PEERS)[number];
export const LEVELS = ['B-B', 'B-T'] as const;
export type Level = (typeof LEVELS)[number];

/**
 * What a benchmark's `--peers` and `--levels` (comma-separated names) and `--documents` (comma-separated
 * prefixes of `documents`' names, or `all`) select, in the order of the lists here.
 */
export const selectRows = <D extends string>(
  args: { peers: string; levels: string; documents: string },
  documents: readonly D[],
): { peers: Peer[]; levels: Level[]; documents: D[] } => ({
  peers: PEERS.filter((p) => args.peers.split(',').includes(p)),
  levels: LEVELS.filter((l) => args.levels.split(',').includes(l)),
  documents:
    args.documents === 'all'
      ? [...documents]
      : documents.filter((d) => args.documents.split(',').some((want) => d.startsWith(want))),
});

/** What a signer is made from: the peer, the level, the signature image, the identity and the TSA. */
export interface SignerJob {
  peer: Peer;
  level: Level;
  /** Path of the drawn signature (PNG) that ours stamps. */
  png: string;
  keyPem: string;
  certPem: string;
  /** Path of the same key and certificate as PKCS#12 (password `bench`). */
  p12: string;
  tsaUrl?: string;
}

const run = promisify(execFile);

/** An RSA-2048 key and self-signed certificate (PEM) and the same as PKCS#12 (3DES, SHA-1 MAC: forge reads it). */
export const makeIdentity = async (dir: string) => {
  await run(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'key.pem',
      '-out',
      'cert.pem',
      '-days',
      '2',
      '-subj',
      '/CN=esign bench peers/O=esign development',
      '-addext',
      'keyUsage=critical,digitalSignature,nonRepudiation',
    ],
    { cwd: dir },
  );
  await run(
    'openssl',
    [
      'pkcs12',
      '-export',
      '-inkey',
      'key.pem',
      '-in',
      'cert.pem',
      '-out',
      'id.p12',
      '-passout',
      'pass:bench',
      '-keypbe',
      'PBE-SHA1-3DES',
      '-certpbe',
      'PBE-SHA1-3DES',
      '-macalg',
      'sha1',
    ],
    { cwd: dir },
  );
  return {
    keyPem: readFileSync(join(dir, 'key.pem'), 'utf8'),
    certPem: readFileSync(join(dir, 'cert.pem'), 'utf8'),
    p12: join(dir, 'id.p12'),
  };
};

/** One signing of `bytes`: the signed file. */
export type SignOnce = (bytes: Buffer) => Promise<Uint8Array>;

/** A peer's signer, built once (certificate, fonts, TSA client), for signing one document after another. */
export const makeSigner = async (job: SignerJob): Promise<SignOnce> => {
  if (job.peer === 'ours') {
    // The signer alone, as a signing worker loads it: the service's entry point would bring NATS,
    // telemetry and the object-storage client into the heap (12 MB more for V8 to mark).
    const { createSigner } = await import('@esign/pdf-signer/signer');
    const signer = await createSigner({
      signing: { keyPem: job.keyPem, certPem: job.certPem },
      warn: () => undefined,
      ...(job.level === 'B-T' && job.tsaUrl
        ? { timestamps: { urls: [job.tsaUrl], timeoutMs: 10_000, maxTokenBytes: 12_288 } }
        : {}),
    });
    const png = readFileSync(job.png).toString('base64');
    return async (bytes) =>
      (
        await signer.sign({
          bytes,
          kind: 'pdf',
          fileName: 'bench.pdf',
          signature: { mode: 'draw', imageBase64: png },
          positions: [{ x: 50, y: 85, page: 0, width: 25 }],
          signer: {
            name: 'Bench Signer',
            email: 'bench@example.com',
            ipAddress: '127.0.0.1',
            userAgent: 'bench',
          },
          receivedAt: new Date().toISOString(),
          // As the handler passes it (PUBLIC_BASE_URL's default): the audit page prints it and its QR code.
          verifyBaseUrl: 'http://localhost:8080',
        })
      ).bytes;
  }
  if (job.peer === 'libpdf') {
    const { PDF, P12Signer, HttpTimestampAuthority } = await import('@libpdf/core');
    const signer = await P12Signer.create(readFileSync(job.p12), 'bench');
    const tsa = job.level === 'B-T' && job.tsaUrl ? new HttpTimestampAuthority(job.tsaUrl) : undefined;
    return async (bytes) => {
      const pdf = await PDF.load(bytes);
      const result = await pdf.sign({
        signer,
        reason: 'Signed with the bench',
        level: job.level,
        ...(tsa ? { timestampAuthority: tsa } : {}),
      });
      return result.bytes;
    };
  }
  const { SignPdf } = await import('@signpdf/signpdf');
  const { pdflibAddPlaceholder } = await import('@signpdf/placeholder-pdf-lib');
  const { P12Signer } = await import('@signpdf/signer-p12');
  const p12 = readFileSync(job.p12);
  const signPdf = new SignPdf();
  return async (bytes) => {
    // One P12Signer per signing: it reads the PKCS#12 from a forge buffer that its first `sign`
    // consumes (a second fails 'Too few bytes to parse DER'), and it decrypts the PKCS#12 in every `sign`.
    const signer = new P12Signer(p12, { passphrase: 'bench' });
    const pdfDoc = await PDFDocument.load(bytes);
    pdflibAddPlaceholder({
      pdfDoc,
      reason: 'Signed with the bench',
      contactInfo: 'bench@example.com',
      name: 'Bench Signer',
      location: 'bench',
    });
    const prepared = Buffer.from(await pdfDoc.save({ useObjectStreams: false }));
    return signPdf.sign(prepared, signer);
  };
};
