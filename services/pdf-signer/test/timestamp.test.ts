import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePdf, makePng, pdfSig, pdfText, startTestTsa } from '@esign/testing';
import type { TestTsa } from '@esign/testing';
import { readDer, readDerChildren } from '../src/domain/der/read-der';
import { encodeTimestampRequest, readTimestampResponse } from '../src/domain/ltv/request-timestamp';
import { verifyPdf } from '../src/domain/verify/verify-pdf';
import { createSigner } from '../src/index';
import type { SignInput, Signer } from '../src/index';
import { drawnSignatureInput } from './sign-input';
import { startTestSigner } from './start-test-signer';
import type { TestSigner } from './start-test-signer';

const run = promisify(execFile);

let tsa: TestTsa;
let backup: TestTsa;
let signer: Signer;
let png: string;
let dir: string;

beforeAll(async () => {
  [tsa, backup] = await Promise.all([startTestTsa(), startTestTsa()]);
  signer = await createSigner({
    warn: () => undefined,
    timestamps: { urls: [tsa.url], timeoutMs: 5_000, maxTokenBytes: 12_288 },
  });
  png = (await makePng()).toString('base64');
  dir = await mkdtemp(join(tmpdir(), 'esign-ts-test-'));
});

afterAll(async () => {
  await Promise.all([tsa.stop(), backup.stop()]);
  await rm(dir, { recursive: true, force: true });
});

const input = (bytes: Buffer, name: string, x = 10): SignInput =>
  drawnSignatureInput({ bytes, name, pngBase64: png, x });

/** Every signature's CMS in file order: the /Contents between the two parts of each /ByteRange. */
const signatureCms = (pdf: Buffer): Buffer[] => {
  const text = pdf.toString('latin1');
  return [...text.matchAll(/\/ByteRange \[0 (\d+) (\d+) \d+\s*\]/g)].map((m) => {
    const hex = text.slice(Number(m[1]) + 1, Number(m[2]) - 1);
    const der = Buffer.from(hex, 'hex');
    return der.subarray(0, readDer(der, 0).end);
  });
};

/** The SignerInfo's signature value and its id-aa-signatureTimeStampToken, walked by hand. */
const signerInfoParts = (cms: Buffer): { signatureValue: Buffer; token?: Buffer } => {
  const [, explicit] = readDerChildren(cms, readDer(cms, 0));
  if (!explicit) throw new Error('no content');
  const [signedData] = readDerChildren(cms, explicit);
  if (!signedData) throw new Error('no SignedData');
  const signerInfos = readDerChildren(cms, signedData).at(-1);
  if (!signerInfos) throw new Error('no signerInfos');
  const [signerInfo] = readDerChildren(cms, signerInfos);
  if (!signerInfo) throw new Error('no SignerInfo');
  const fields = readDerChildren(cms, signerInfo);
  const value = fields.find((n) => n.tag === 0x04);
  if (!value) throw new Error('no signature value');
  const signatureValue = cms.subarray(value.contentStart, value.end);
  const unsigned = fields.find((n) => n.tag === 0xa1);
  if (!unsigned) return { signatureValue };
  const [attribute] = readDerChildren(cms, unsigned);
  if (!attribute) throw new Error('empty unsigned attributes');
  const [oid, set] = readDerChildren(cms, attribute);
  if (!oid || !set) throw new Error('bad attribute');
  // 1.2.840.113549.1.9.16.2.14
  expect(cms.subarray(oid.contentStart, oid.end).toString('hex')).toBe('2a864886f70d010910020e');
  const [token] = readDerChildren(cms, set);
  if (!token) throw new Error('no token');
  return { signatureValue, token: cms.subarray(token.start, token.end) };
};

/** `openssl ts -verify` of a token against a digest and the test TSA's CA. */
const opensslVerify = async (token: Buffer, digest: Buffer, caFile: string) => {
  const file = join(dir, `${randomBytes(6).toString('hex')}.tst`);
  await writeFile(file, token);
  const { stdout } = await run('openssl', [
    'ts',
    '-verify',
    '-token_in',
    '-in',
    file,
    '-digest',
    digest.toString('hex'),
    '-CAfile',
    caFile,
  ]);
  return stdout;
};

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest();

describe('RFC 3161 signature timestamps', () => {
  it('embeds a token over the signature value that openssl ts -verify accepts', async () => {
    const before = Date.now();
    const signed = await signer.sign(input(await makePdf({ pages: 1 }), 'Alice'));
    const report = (await pdfSig(signed.bytes)).stdout;
    expect(report).toContain('Signature Validation: Signature is Valid.');

    const [cms] = signatureCms(signed.bytes);
    if (!cms) throw new Error('no signature');
    // openssl parses the whole CMS and finds the timestamp token as an unsigned attribute.
    const cmsFile = join(dir, 'signature.p7s');
    await writeFile(cmsFile, cms);
    const printed = (await run('openssl', ['cms', '-inform', 'DER', '-cmsout', '-print', '-in', cmsFile]))
      .stdout;
    expect(printed).toMatch(/unsignedAttrs:\s*object: id-smime-aa-timeStampToken/);
    const { signatureValue, token } = signerInfoParts(cms);
    if (!token) throw new Error('no timestamp token');
    expect(await opensslVerify(token, sha256(signatureValue), tsa.caCertFile)).toContain('Verification: OK');
    // The imprint is of this signature value and of nothing else.
    await expect(opensslVerify(token, sha256(Buffer.from('other')), tsa.caCertFile)).rejects.toThrow();

    const sealed = signed.events.find((e) => e.event === 'document.sealed')?.details;
    expect(sealed?.timestampAuthority).toContain('CN=esign test TSA');
    const time = Date.parse(String(sealed?.timestampTime));
    expect(time).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 - 1000);
    expect(time).toBeLessThanOrEqual(Date.now() + 1000);
    expect(signed.timestamp).toMatchObject({ authority: sealed?.timestampAuthority, url: tsa.url });
    expect(signed.timestamp?.tsaMs).toBeGreaterThanOrEqual(0);
    // The audit page, drawn before the signature exists, says where the timestamp is.
    expect(await pdfText(signed.bytes, 1)).toContain('RFC 3161 token from a time-stamping authority');
  });

  it('keeps earlier signatures and their timestamps valid after a countersignature', async () => {
    const first = await signer.sign(input(await makePdf({ pages: 1 }), 'Alice', 10));
    const second = await signer.sign(input(first.bytes, 'Bob', 40));
    const report = (await pdfSig(second.bytes)).stdout;
    expect(report.match(/Signature Validation: Signature is Valid\./g)).toHaveLength(2);
    const all = signatureCms(second.bytes);
    expect(all).toHaveLength(2);
    for (const cms of all) {
      const { signatureValue, token } = signerInfoParts(cms);
      if (!token) throw new Error('no timestamp token');
      expect(await opensslVerify(token, sha256(signatureValue), tsa.caCertFile)).toContain(
        'Verification: OK',
      );
    }
  });

  it('at B-LTA, ends each seal with a document timestamp over the whole file; every signature stays valid', async () => {
    const lta = (bytes: Buffer, name: string, x: number): SignInput => ({
      ...input(bytes, name, x),
      padesLevel: 'B-LTA',
    });
    const first = await signer.sign(lta(await makePdf({ pages: 1 }), 'Alice', 10));
    const second = await signer.sign(lta(first.bytes, 'Bob', 40));
    const pdf = second.bytes;
    // Both CMS signatures verify for pdfsig (this poppler cannot validate document timestamps itself).
    const report = (await pdfSig(pdf)).stdout;
    expect(report.match(/Signature Type: adbe\.pkcs7\.detached[\s\S]*?Signature is Valid\./g)).toHaveLength(
      2,
    );
    expect(report).toContain('Document timestamp');
    // Each document timestamp: a token over SHA-256 of exactly the bytes its /ByteRange names.
    const text = pdf.toString('latin1');
    const stamps = [...text.matchAll(/\/SubFilter \/ETSI\.RFC3161 \/ByteRange \[0 (\d+) (\d+) (\d+)\s*\]/g)];
    expect(stamps).toHaveLength(2);
    for (const m of stamps) {
      const [start, end, rest] = [Number(m[1]), Number(m[2]), Number(m[3])];
      const der = Buffer.from(text.slice(start + 1, end - 1), 'hex');
      const token = der.subarray(0, readDer(der, 0).end);
      const covered = Buffer.concat([pdf.subarray(0, start), pdf.subarray(end, end + rest)]);
      expect(await opensslVerify(token, sha256(covered), tsa.caCertFile)).toContain('Verification: OK');
    }
    // The last one covers the whole file.
    const last = stamps.at(-1);
    expect(Number(last?.[2]) + Number(last?.[3])).toBe(pdf.length);
    expect(second.fileHash).toBe(`sha256:${sha256(pdf).toString('hex')}`);
    // Our verifier: four valid signatures, and after each CMS seal only validation data and a timestamp.
    const verified = verifyPdf(pdf);
    expect(verified.signatures.map((sig) => [sig.type, sig.cryptographicallyValid])).toEqual([
      ['signature', true],
      ['document-timestamp', true],
      ['signature', true],
      ['document-timestamp', true],
    ]);
    expect(verified.signatures[2]?.changesAfter).toEqual([
      'long-term validation data (DSS)',
      'a document timestamp',
    ]);
  });

  it('refuses a token larger than the room reserved for it, rather than write a broken signature', async () => {
    const warnings: string[] = [];
    const small = await createSigner({
      warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields ?? {})}`),
      timestamps: { urls: [tsa.url], timeoutMs: 5_000, maxTokenBytes: 1024 },
    });
    await expect(small.sign(input(await makePdf({ pages: 1 }), 'Alice'))).rejects.toMatchObject({
      code: 'unavailable',
      message: 'no time-stamping authority answered; retry',
    });
    expect(warnings.join('\n')).toMatch(/larger than (1024|TSA_TOKEN_MAX_BYTES)/);
  });

  it('checks what the TSA answers: a token for another imprint or nonce is refused', async () => {
    const hash = sha256(Buffer.from('signature value'));
    const nonce = randomBytes(8);
    nonce[0] = (nonce[0] ?? 0) & 0x7f;
    const response = await fetch(tsa.url, {
      method: 'POST',
      headers: { 'content-type': 'application/timestamp-query' },
      body: encodeTimestampRequest(hash, nonce),
    });
    const body = Buffer.from(await response.arrayBuffer());
    const read = readTimestampResponse(body, hash, nonce);
    expect(read.authority).toContain('CN=esign test TSA');
    expect(() => readTimestampResponse(body, sha256(Buffer.from('other')), nonce)).toThrow(/messageImprint/);
    expect(() => readTimestampResponse(body, hash, randomBytes(8))).toThrow(/nonce/);
    expect(() => readTimestampResponse(randomBytes(200), hash, nonce)).toThrow();
  });
});

describe('the stand-in TSA answering after a delay, concurrently (startTestTsa({ delayMs }))', () => {
  it('answers many queries at once, each after its delay, with tokens openssl ts -verify and pdfsig accept', async () => {
    const standIn = await startTestTsa({ delayMs: 200 });
    try {
      const stamping = await createSigner({
        warn: () => undefined,
        timestamps: { urls: [standIn.url], timeoutMs: 5_000, maxTokenBytes: 12_288 },
      });
      const documents = await Promise.all(Array.from({ length: 4 }, () => makePdf({ pages: 1 })));
      // Warm: the four below then spend their time waiting, not compiling.
      await stamping.sign(input(await makePdf({ pages: 1 }), 'Warm Up'));
      const started = performance.now();
      const signed = await Promise.all(documents.map((pdf, i) => stamping.sign(input(pdf, `Signer ${i}`))));
      // Four tokens one after the other would take 800 ms.
      expect(performance.now() - started).toBeLessThan(700);
      for (const result of signed) {
        expect(result.timestamp?.tsaMs).toBeGreaterThanOrEqual(195);
        expect((await pdfSig(result.bytes)).stdout).toContain('Signature Validation: Signature is Valid.');
        const [cms] = signatureCms(result.bytes);
        if (!cms) throw new Error('no signature');
        const { signatureValue, token } = signerInfoParts(cms);
        if (!token) throw new Error('no timestamp token');
        expect(await opensslVerify(token, sha256(signatureValue), standIn.caCertFile)).toContain(
          'Verification: OK',
        );
        await expect(
          opensslVerify(token, sha256(Buffer.from('other')), standIn.caCertFile),
        ).rejects.toThrow();
      }
      expect(standIn.requests()).toBe(5);
    } finally {
      await standIn.stop();
    }
  });
});

describe('the pdf.sign endpoint with time-stamping authorities', () => {
  let service: TestSigner;

  beforeAll(async () => {
    service = await startTestSigner({ TSA_URLS: `${tsa.url},${backup.url}`, TSA_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    await service.stop();
  });

  const signedObjects = async () => (await service.blob.list('signed/')).length;

  it('signs with the first TSA that answers, and says which in the reply', async () => {
    tsa.setMode('down');
    backup.setMode('ok');
    const asked = tsa.requests();
    const { reply, signed } = await service.sign(await makePdf({ pages: 1 }));
    tsa.setMode('ok');
    expect(tsa.requests()).toBe(asked + 1);
    expect(reply.timestamp?.authority).toContain('CN=esign test TSA');
    const [cms] = signatureCms(signed);
    if (!cms) throw new Error('no signature');
    const { signatureValue, token } = signerInfoParts(cms);
    if (!token) throw new Error('no timestamp token');
    // Made by the backup TSA: it verifies against the backup's CA and not against the first one's.
    expect(await opensslVerify(token, sha256(signatureValue), backup.caCertFile)).toContain(
      'Verification: OK',
    );
    await expect(opensslVerify(token, sha256(signatureValue), tsa.caCertFile)).rejects.toThrow();
    expect((await pdfSig(signed)).stdout).toContain('Signature Validation: Signature is Valid.');
  });

  for (const mode of ['down', 'slow', 'garbage', 'reject'] as const) {
    it(`answers unavailable and writes nothing when every TSA is ${mode}`, async () => {
      tsa.setMode(mode, { slowMs: 5_000 });
      backup.setMode(mode, { slowMs: 5_000 });
      const stored = await signedObjects();
      const started = Date.now();
      try {
        const err = await service.signError(await makePdf({ pages: 1 }));
        expect(err.code).toBe('unavailable');
        expect(err.message).toBe('no time-stamping authority answered; retry');
        if (mode === 'slow') expect(Date.now() - started).toBeLessThan(4_500);
        expect(await signedObjects()).toBe(stored);
        // The upload is removed as after any failure.
        expect(await service.blob.list('uploads/')).toEqual([]);
      } finally {
        tsa.setMode('ok');
        backup.setMode('ok');
      }
    });
  }
});
