import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceError } from '@esign/contracts';
import { makePdf, pdfSig, startTestPki, startTestTsa } from '@esign/testing';
import type { TestPki, TestPkiCertName } from '@esign/testing';
import { createHttpRevocationFetcher } from '../src/adapters/http-revocation-fetcher';
import type { RevocationFetcher } from '../src/domain/ltv/ports';
import { createRevocationCache, revocationSources } from '../src/domain/ltv/revocation';
import { verifyPdf } from '../src/domain/verify/verify-pdf';
import { createSigner } from '../src/index';
import type { SignInput, Signer } from '../src/index';
import { startTestSigner } from './start-test-signer';

const run = promisify(execFile);

let pki: TestPki;
let dir: string;

beforeAll(async () => {
  pki = await startTestPki();
  dir = await mkdtemp(join(tmpdir(), 'esign-revocation-test-'));
});

afterAll(async () => {
  await pki.stop();
  await rm(dir, { recursive: true, force: true });
});

const input = async (): Promise<SignInput> => ({
  bytes: await makePdf({ pages: 1 }),
  kind: 'pdf',
  fileName: 'contract.pdf',
  signature: { mode: 'type', typedName: 'Alice', color: '#1e3a8a' },
  positions: [{ x: 10, y: 80, page: 0, width: 20 }],
  signer: { name: 'Alice', email: 'alice@example.com', ipAddress: '198.51.100.7', userAgent: 'Test/1.0' },
  receivedAt: '2026-11-21T10:00:00.000Z',
  padesLevel: 'B-LT',
});

/** A signer sealing with one of the test PKI's certificates (followed by the CA's), and what it logged. */
const signerWith = async (name: TestPkiCertName) => {
  const warnings: string[] = [];
  const errors: string[] = [];
  const signer: Signer = await createSigner({
    signing: { keyPem: pki.certs[name].keyPem, certPem: `${pki.certs[name].certPem}${pki.caCertPem}` },
    revocation: { timeoutMs: 1_000 },
    warn: (message, fields) => warnings.push(`${message} ${JSON.stringify(fields ?? {})}`),
    error: (message, fields) => errors.push(`${message} ${JSON.stringify(fields ?? {})}`),
  });
  return { signer, warnings, errors };
};

/** The streams an array of the DSS lists (`OCSPs`, `CRLs`, `Certs`), extracted with qpdf. */
const dssStreams = async (pdf: Buffer, key: 'OCSPs' | 'CRLs' | 'Certs'): Promise<Buffer[]> => {
  const file = join(dir, `signed-${Date.now()}-${Math.random()}.pdf`);
  await writeFile(file, pdf);
  const catalog = (await run('qpdf', ['--show-object=trailer', file])).stdout;
  const root = /\/Root (\d+) 0 R/.exec(catalog)?.[1];
  const dssRef = /\/DSS (\d+) 0 R/.exec((await run('qpdf', [`--show-object=${root}`, file])).stdout)?.[1];
  if (!dssRef) throw new Error('no DSS');
  const dss = (await run('qpdf', [`--show-object=${dssRef}`, file])).stdout;
  const list = new RegExp(`/${key} \\[([^\\]]*)\\]`).exec(dss)?.[1] ?? '';
  const refs = [...list.matchAll(/(\d+) 0 R/g)].map((m) => m[1]);
  return Promise.all(
    refs.map(
      async (ref) =>
        (
          await run('qpdf', [`--show-object=${ref}`, '--raw-stream-data', file], {
            encoding: 'buffer',
            maxBuffer: 10 * 1024 * 1024,
          })
        ).stdout,
    ),
  );
};

/** `openssl ocsp` checks an OCSP response taken from a DSS against the test PKI: its output. */
const opensslOcsp = async (
  response: Buffer | undefined,
  cert: TestPkiCertName,
): Promise<{ stdout: string; all: string }> => {
  const respFile = join(dir, `${cert}-${Date.now()}.ocsp`);
  await writeFile(respFile, response ?? Buffer.alloc(0));
  const { stdout, stderr } = await run('openssl', [
    'ocsp',
    '-respin',
    respFile,
    '-CAfile',
    pki.caCertFile,
    '-issuer',
    pki.caCertFile,
    '-cert',
    pki.certs[cert].certFile,
  ]);
  return { stdout, all: `${stdout}${stderr}` };
};

describe('revocation data in the DSS (PAdES B-LT)', () => {
  it('reads the OCSP and CRL addresses of a certificate', () => {
    const cert = new X509Certificate(pki.certs.good.certPem).raw;
    expect(revocationSources(cert)).toEqual({ ocsp: [pki.ocspUrl], crl: [pki.crlUrl] });
    expect(revocationSources(new X509Certificate(pki.caCertPem).raw)).toEqual({ ocsp: [], crl: [] });
  });

  it('embeds the OCSP response that openssl ocsp verifies as good, and pdfsig says valid', async () => {
    const { signer, warnings } = await signerWith('good');
    const signed = await signer.sign(await input());
    expect((await pdfSig(signed.bytes)).stdout).toContain('Signature Validation: Signature is Valid.');
    const ocsps = await dssStreams(signed.bytes, 'OCSPs');
    expect(ocsps).toHaveLength(1);
    // OCSP preferred: no CRL fetched when the responder answered.
    expect(await dssStreams(signed.bytes, 'CRLs')).toHaveLength(0);
    const { stdout, all } = await opensslOcsp(ocsps[0], 'good');
    expect(all).toContain('Response verify OK');
    expect(stdout).toMatch(/good\.pem: good/);
    expect(warnings.filter((w) => w.includes('revocation'))).toEqual([]);
    // Our verifier counts the OCSP response as validation data, not as a change after the seal.
    expect(verifyPdf(signed.bytes).signatures[0]?.changesAfter).toEqual(['long-term validation data (DSS)']);
    signer.revocation?.close();
  });

  it('embeds the CRL when the certificate names no OCSP responder (verified by openssl crl)', async () => {
    const { signer } = await signerWith('crlOnly');
    const signed = await signer.sign(await input());
    expect((await pdfSig(signed.bytes)).stdout).toContain('Signature Validation: Signature is Valid.');
    expect(await dssStreams(signed.bytes, 'OCSPs')).toHaveLength(0);
    const [crl] = await dssStreams(signed.bytes, 'CRLs');
    const crlFile = join(dir, 'embedded.crl');
    await writeFile(crlFile, crl ?? Buffer.alloc(0));
    const { stdout, stderr } = await run('openssl', [
      'crl',
      '-inform',
      'DER',
      '-in',
      crlFile,
      '-CAfile',
      pki.caCertFile,
      '-noout',
      '-text',
    ]);
    expect(stderr).toContain('verify OK');
    // The revoked serials of the CA, not this certificate's (0x1003).
    expect(stdout).toContain('Serial Number: 1002');
    expect(stdout).not.toContain('Serial Number: 1003');
    signer.revocation?.close();
  });

  it.each(['revoked', 'crlRevoked'] as const)(
    'refuses to seal with a certificate its %s source says is revoked',
    async (name) => {
      const { signer, errors } = await signerWith(name);
      const failure = await signer.sign(await input()).catch((err: unknown) => err);
      expect(failure).toBeInstanceOf(ServiceError);
      expect(failure).toMatchObject({ code: 'unavailable' });
      expect(String((failure as Error).message)).toMatch(/revoked.*refusing to seal/);
      expect(errors.join('\n')).toContain('CERTIFICATE REVOKED');
      // Said by the OCSP responder for the one that names it, by the CRL for the other.
      expect(errors.join('\n')).toContain(name === 'revoked' ? pki.ocspUrl : pki.crlUrl);
      signer.revocation?.close();
    },
  );

  it('seals without revocation data, with a warning, when the responder and CRL server are down', async () => {
    const { signer, warnings } = await signerWith('unreachable');
    const signed = await signer.sign(await input());
    expect((await pdfSig(signed.bytes)).stdout).toContain('Signature Validation: Signature is Valid.');
    expect(await dssStreams(signed.bytes, 'OCSPs')).toHaveLength(0);
    expect(await dssStreams(signed.bytes, 'CRLs')).toHaveLength(0);
    // The certificates are still there.
    expect(await dssStreams(signed.bytes, 'Certs')).toHaveLength(2);
    expect(warnings.join('\n')).toMatch(/revocation data unavailable.*esign test unreachable/);
    signer.revocation?.close();
  });

  it("embeds the TSA certificate's OCSP response from the second seal on (fetched in the background)", async () => {
    const tsa = await startTestTsa({
      identity: { certPem: pki.certs.tsa.certPem, keyPem: pki.certs.tsa.keyPem, caCertPem: pki.caCertPem },
    });
    const signer = await createSigner({
      signing: { keyPem: pki.certs.good.keyPem, certPem: `${pki.certs.good.certPem}${pki.caCertPem}` },
      timestamps: { urls: [tsa.url], timeoutMs: 5_000, maxTokenBytes: 12_288 },
      revocation: { timeoutMs: 1_000 },
      warn: () => undefined,
    });
    try {
      const first = await signer.sign(await input());
      // The TSA's certificate is first seen in this token: only the signing certificate's response.
      expect(await dssStreams(first.bytes, 'OCSPs')).toHaveLength(1);
      const tsaCert = new X509Certificate(pki.certs.tsa.certPem).raw;
      await expect.poll(() => signer.revocation?.state(tsaCert)?.status, { timeout: 5_000 }).toBe('good');
      const second = await signer.sign(await input());
      expect((await pdfSig(second.bytes)).stdout).toContain('Signature Validation: Signature is Valid.');
      const ocsps = await dssStreams(second.bytes, 'OCSPs');
      expect(ocsps).toHaveLength(2);
      const { stdout, all } = await opensslOcsp(ocsps[1], 'tsa');
      expect(all).toContain('Response verify OK');
      expect(stdout).toMatch(/tsa\.pem: good/);
    } finally {
      signer.revocation?.close();
      await tsa.stop();
    }
  });

  it('fetches a certificate seen the first time in the background (the TSA case)', async () => {
    const cache = createRevocationCache({ fetcher: createHttpRevocationFetcher({ timeoutMs: 1_000 }) });
    const chain = [new X509Certificate(pki.certs.good.certPem).raw, new X509Certificate(pki.caCertPem).raw];
    cache.notice(chain);
    // Not waited for: the first document goes without it.
    expect(cache.dataFor(chain).ocsps).toHaveLength(0);
    await expect.poll(() => cache.dataFor(chain).ocsps.length, { timeout: 5_000 }).toBe(1);
    expect(cache.state(chain[0] ?? Buffer.alloc(0))).toMatchObject({ status: 'good', kind: 'ocsp' });
    cache.close();
  });

  it('marks a certificate whose sources do not answer unavailable, and says why (fake fetcher)', async () => {
    const asked: string[] = [];
    const down: RevocationFetcher = {
      fetchOcsp: (url) => {
        asked.push(url);
        return Promise.reject(new Error('HTTP 503'));
      },
      fetchCrl: (url) => {
        asked.push(url);
        return Promise.reject(new Error('connect ECONNREFUSED'));
      },
    };
    const warnings: unknown[] = [];
    const cache = createRevocationCache({ fetcher: down }, { warn: (_, fields) => warnings.push(fields) });
    const chain = [new X509Certificate(pki.certs.good.certPem).raw, new X509Certificate(pki.caCertPem).raw];
    await cache.prepare(chain);
    const { ocsp, crl } = revocationSources(chain[0] ?? Buffer.alloc(0));
    expect(asked).toEqual([...ocsp, ...crl]);
    expect(cache.state(chain[0] ?? Buffer.alloc(0))).toEqual({ status: 'unavailable' });
    expect(cache.dataFor(chain)).toEqual({ ocsps: [], crls: [] });
    expect(warnings).toEqual([
      expect.objectContaining({
        failures: [
          ...ocsp.map((url) => `${url}: HTTP 503`),
          ...crl.map((url) => `${url}: connect ECONNREFUSED`),
        ],
      }),
    ]);
    cache.close();
  });
});

describe('the pdf.sign endpoint (signing workers) with revocation data', () => {
  it('seals with the OCSP response in the DSS, and answers unavailable for a revoked certificate', async () => {
    const env = (name: TestPkiCertName) => ({
      SIGNING_KEY_PEM: pki.certs[name].keyPem,
      SIGNING_CERT_PEM: `${pki.certs[name].certPem}${pki.caCertPem}`,
      SIGN_WORKERS: '1',
      REVOCATION_TIMEOUT_MS: '1000',
    });
    const good = await startTestSigner(env('good'));
    try {
      const { signed } = await good.sign(await makePdf({ pages: 1 }));
      expect((await pdfSig(signed)).stdout).toContain('Signature Validation: Signature is Valid.');
      expect(await dssStreams(signed, 'OCSPs')).toHaveLength(1);
    } finally {
      await good.stop();
    }
    const revoked = await startTestSigner(env('revoked'));
    try {
      const err = await revoked.signError(await makePdf({ pages: 1 }));
      expect(err.code).toBe('unavailable');
      expect(err.message).toMatch(/revoked/);
    } finally {
      await revoked.stop();
    }
  }, 60_000);
});
