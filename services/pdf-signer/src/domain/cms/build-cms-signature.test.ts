import { execFile } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCmsSignature } from './build-cms-signature';
import { DEVELOPMENT_CERT_CN, loadSigningIdentity } from './load-signing-identity';

const run = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'esign-cms-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** openssl's own verdict on a detached CMS signature over `content`. */
const opensslVerify = async (cms: Buffer, content: Buffer, certPem: string) => {
  await writeFile(join(dir, 'sig.der'), cms);
  await writeFile(join(dir, 'content.bin'), content);
  await writeFile(join(dir, 'cert.pem'), certPem);
  const { stderr } = await run('openssl', [
    'cms',
    '-verify',
    '-binary',
    '-inform',
    'DER',
    '-in',
    join(dir, 'sig.der'),
    '-content',
    join(dir, 'content.bin'),
    '-CAfile',
    join(dir, 'cert.pem'),
    '-purpose',
    'any',
    '-out',
    join(dir, 'out.bin'),
  ]);
  return stderr;
};

const opensslKeyAndCert = async (keyArgs: string[]) => {
  const key = join(dir, `key-${keyArgs.join('')}.pem`);
  const cert = join(dir, `cert-${keyArgs.join('')}.pem`);
  await run('openssl', [
    'req',
    '-x509',
    '-newkey',
    ...keyArgs,
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '30',
    '-subj',
    '/CN=Test Signer/O=Example',
  ]);
  return { keyPem: await readFile(key, 'utf8'), certPem: await readFile(cert, 'utf8') };
};

describe('buildCmsSignature', () => {
  it('makes a detached SignedData that openssl verifies (development RSA certificate)', async () => {
    const warnings: string[] = [];
    const identity = loadSigningIdentity(undefined, (m) => warnings.push(m));
    expect(identity.development).toBe(true);
    expect(identity.subject).toContain(DEVELOPMENT_CERT_CN);
    expect(warnings.join()).toContain('development certificate');
    const content = Buffer.from('the bytes a PDF /ByteRange covers');
    const cms = await buildCmsSignature({
      identity,
      digest: createHash('sha256').update(content).digest(),
      signingTime: new Date(),
    });
    const certPem = new X509Certificate(identity.certificates[0] ?? Buffer.alloc(0)).toString();
    expect(await opensslVerify(cms, content, certPem)).toContain('Verification successful');
  });

  it('signs with a configured EC key, and openssl rejects other content', async () => {
    const material = await opensslKeyAndCert(['ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']);
    const identity = loadSigningIdentity(material);
    expect(identity.development).toBe(false);
    const content = Buffer.from('sealed content');
    const cms = await buildCmsSignature({
      identity,
      digest: createHash('sha256').update(content).digest(),
      signingTime: new Date(),
    });
    expect(await opensslVerify(cms, content, material.certPem)).toContain('Verification successful');
    await expect(opensslVerify(cms, Buffer.from('tampered content'), material.certPem)).rejects.toThrow();
  });

  it('refuses a key that does not belong to the certificate', async () => {
    const a = await opensslKeyAndCert(['rsa:2048']);
    const b = await opensslKeyAndCert(['ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1']);
    expect(() => loadSigningIdentity({ keyPem: b.keyPem, certPem: a.certPem })).toThrow(/do not match/);
  });
});
