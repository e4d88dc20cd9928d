import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, makeTestCa, openssl } from '@esign/dev-servers';

/** The end-entity certificates a test PKI issues, by how their revocation is served. */
export type TestPkiCertName =
  /** AIA OCSP + CRL distribution point, good. */
  | 'good'
  /** AIA OCSP + CRL distribution point, revoked. */
  | 'revoked'
  /** CRL distribution point only, good. */
  | 'crlOnly'
  /** CRL distribution point only, revoked. */
  | 'crlRevoked'
  /** AIA OCSP and CRL distribution point on a port where nothing listens. */
  | 'unreachable'
  /** A time-stamping authority's (extendedKeyUsage timeStamping), AIA OCSP, good: for `startTestTsa`. */
  | 'tsa';

export interface TestPkiCert {
  readonly keyPem: string;
  readonly certPem: string;
  readonly certFile: string;
}

/** A throwaway CA with an OCSP responder (`openssl ocsp`) and a CRL server on 127.0.0.1. */
export interface TestPki {
  readonly dir: string;
  readonly caCertPem: string;
  readonly caCertFile: string;
  /** The delegated OCSP responder's certificate (extendedKeyUsage OCSPSigning, issued by the CA). */
  readonly responderCertFile: string;
  readonly ocspUrl: string;
  readonly crlUrl: string;
  readonly certs: Record<TestPkiCertName, TestPkiCert>;
  /** CRL downloads served so far. */
  crlRequests(): number;
  /** Stop the OCSP responder (as a responder that is down). */
  stopOcsp(): Promise<void>;
  stop(): Promise<void>;
}

const CA_CONFIG = `
[ ca ]
default_ca = CA_default
[ CA_default ]
dir = .
database = index.txt
crlnumber = crlnumber
default_md = sha256
default_crl_days = 1
`;

/** YYMMDDHHMMSSZ, as index.txt writes times. */
const indexTime = (date: Date) => date.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z';

/**
 * Start a throwaway PKI made with openssl in a temporary directory: a root CA, a delegated OCSP
 * responder certificate, and one certificate per `TestPkiCertName` whose Authority Information Access
 * and CRL Distribution Points point at local ports. The CA's database (index.txt) marks the revoked
 * ones; `openssl ocsp -index` answers OCSP from it and `openssl ca -gencrl` makes the CRL, served
 * over HTTP. Independent of the code under test.
 */
export const startTestPki = async (): Promise<TestPki> => {
  const dir = mkdtempSync(join(tmpdir(), 'esign-pki-'));
  const ocspPort = await freePort();
  const deadPort = await freePort();
  let crlCount = 0;
  const crlServer = createServer((req, res) => {
    if (req.url === '/ca.crl') {
      crlCount++;
      res.writeHead(200, { 'content-type': 'application/pkix-crl' });
      res.end(readFileSync(join(dir, 'ca.crl')));
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => crlServer.listen(0, '127.0.0.1', resolve));
  const crlPort = (crlServer.address() as AddressInfo).port;
  const ocspUrl = `http://127.0.0.1:${ocspPort}/`;
  const crlUrl = `http://127.0.0.1:${crlPort}/ca.crl`;
  let responder: ChildProcess | undefined;

  const stopOcsp = async () => {
    const child = responder;
    responder = undefined;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  };
  const stop = async () => {
    await stopOcsp();
    await new Promise<void>((resolve) => crlServer.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const days = '2';
    await makeTestCa(dir, 'esign test PKI root');
    const issue = async (name: string, serial: string, ext: string[]) => {
      await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`], dir);
      await openssl(
        [
          'req',
          '-new',
          '-key',
          `${name}.key`,
          '-out',
          `${name}.csr`,
          '-subj',
          `/CN=esign test ${name}/O=esign development`,
        ],
        dir,
      );
      writeFileSync(join(dir, `${name}.ext`), ['basicConstraints=critical,CA:FALSE', ...ext, ''].join('\n'));
      await openssl(
        [
          'x509',
          '-req',
          '-in',
          `${name}.csr`,
          '-CA',
          'ca.pem',
          '-CAkey',
          'ca.key',
          '-set_serial',
          `0x${serial}`,
          '-out',
          `${name}.pem`,
          '-days',
          days,
          '-extfile',
          `${name}.ext`,
        ],
        dir,
      );
    };
    await issue('responder', '1000', [
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=critical,OCSPSigning',
    ]);
    const signing = ['keyUsage=critical,digitalSignature,nonRepudiation'];
    const aia = (port: number) => `authorityInfoAccess=OCSP;URI:http://127.0.0.1:${port}/`;
    const dp = (url: string) => `crlDistributionPoints=URI:${url}`;
    const plan: [TestPkiCertName, string, string[], boolean][] = [
      ['good', '1001', [aia(ocspPort), dp(crlUrl)], false],
      ['revoked', '1002', [aia(ocspPort), dp(crlUrl)], true],
      ['crlOnly', '1003', [dp(crlUrl)], false],
      ['crlRevoked', '1004', [dp(crlUrl)], true],
      ['unreachable', '1005', [aia(deadPort), dp(`http://127.0.0.1:${deadPort}/ca.crl`)], false],
    ];
    plan.push([
      'tsa',
      '1006',
      ['keyUsage=critical,digitalSignature', 'extendedKeyUsage=critical,timeStamping', aia(ocspPort)],
      false,
    ]);
    const expiry = indexTime(new Date(Date.now() + 2 * 86_400_000));
    const revokedAt = indexTime(new Date(Date.now() - 3_600_000));
    const index: string[] = [];
    for (const [name, serial, ext, revoked] of plan) {
      await issue(name, serial, name === 'tsa' ? ext : [...signing, ...ext]);
      const line = [
        revoked ? 'R' : 'V',
        expiry,
        revoked ? revokedAt : '',
        serial,
        'unknown',
        `/CN=esign test ${name}`,
      ];
      index.push(line.join('\t'));
    }
    writeFileSync(join(dir, 'index.txt'), `${index.join('\n')}\n`);
    writeFileSync(join(dir, 'index.txt.attr'), 'unique_subject = no\n');
    writeFileSync(join(dir, 'crlnumber'), '01\n');
    writeFileSync(join(dir, 'ca.cnf'), CA_CONFIG);
    await openssl(
      ['ca', '-config', 'ca.cnf', '-gencrl', '-keyfile', 'ca.key', '-cert', 'ca.pem', '-out', 'ca.crl.pem'],
      dir,
    );
    await openssl(['crl', '-in', 'ca.crl.pem', '-outform', 'DER', '-out', 'ca.crl'], dir);

    responder = spawn(
      'openssl',
      [
        'ocsp',
        '-index',
        'index.txt',
        '-port',
        String(ocspPort),
        '-rsigner',
        'responder.pem',
        '-rkey',
        'responder.key',
        '-CA',
        'ca.pem',
        '-nmin',
        '60',
        '-ignore_err',
        // A client that connects and sends nothing is dropped after 5 s instead of holding it.
        '-timeout',
        '5',
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    // Never outlive the test process (a test that fails before stop() would leave it running).
    const orphan = responder;
    const killOnExit = () => orphan.kill('SIGKILL');
    process.once('exit', killOnExit);
    orphan.once('exit', () => process.removeListener('exit', killOnExit));
    // openssl ocsp serves one connection at a time: a probe connection would hold it, so wait for
    // its own word that it listens.
    const child = responder;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('test PKI: openssl ocsp did not start')), 10_000);
      const seen = (chunk: Buffer) => {
        if (chunk.toString().includes('waiting for OCSP client connections')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', seen);
      child.stderr?.on('data', seen);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`test PKI: openssl ocsp exited (${code})`));
      });
    });
    child.stdout?.resume();
    child.stderr?.resume();
  } catch (err) {
    await stop();
    throw err;
  }

  const cert = (name: TestPkiCertName): TestPkiCert => ({
    keyPem: readFileSync(join(dir, `${name}.key`), 'utf8'),
    certPem: readFileSync(join(dir, `${name}.pem`), 'utf8'),
    certFile: join(dir, `${name}.pem`),
  });
  return {
    dir,
    caCertPem: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    caCertFile: join(dir, 'ca.pem'),
    responderCertFile: join(dir, 'responder.pem'),
    ocspUrl,
    crlUrl,
    certs: {
      good: cert('good'),
      revoked: cert('revoked'),
      crlOnly: cert('crlOnly'),
      crlRevoked: cert('crlRevoked'),
      unreachable: cert('unreachable'),
      tsa: cert('tsa'),
    },
    crlRequests: () => crlCount,
    stopOcsp,
    stop,
  };
};
