import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeTestCa, openssl } from './openssl-ca';
import { createTokenSigner } from './rfc3161-token';

/**
 * How the test TSA answers: `ok` (a real token from `openssl ts -reply`), `down` (the connection is
 * dropped), `slow` (no answer for `slowMs`), `garbage` (200 with random bytes), `reject` (a
 * TimeStampResp with status rejection).
 */
export type TestTsaMode = 'ok' | 'down' | 'slow' | 'garbage' | 'reject';

/** A local RFC 3161 time-stamping authority for development and tests. */
export interface TestTsa {
  /** POST application/timestamp-query here. */
  readonly url: string;
  /** The throwaway CA that issued the TSA certificate (pass to `openssl ts -verify -CAfile`). */
  readonly caCertPem: string;
  /** The TSA's own certificate (extendedKeyUsage critical timeStamping). */
  readonly tsaCertPem: string;
  /** Files of the two certificates, for command lines. */
  readonly caCertFile: string;
  readonly tsaCertFile: string;
  /**
   * Change how the next requests are answered; `delayMs` changes the delay of a TSA started with one
   * (`startTestTsa({ delayMs })`).
   */
  setMode(mode: TestTsaMode, options?: { slowMs?: number; delayMs?: number }): void;
  /** Requests received so far (any mode). */
  requests(): number;
  stop(): Promise<void>;
}

const tsaConfig = (dir: string) => `
[ tsa ]
default_tsa = tsa_config

[ tsa_config ]
dir = ${dir}
serial = $dir/serial
crypto_device = builtin
signer_cert = $dir/tsa.pem
certs = $dir/ca.pem
signer_key = $dir/tsa.key
signer_digest = sha256
default_policy = 1.3.6.1.4.1.99999.1
other_policies = 1.3.6.1.4.1.99999.2
digests = sha256, sha384, sha512
accuracy = secs:1
ordering = no
tsa_name = yes
ess_cert_id_chain = no
ess_cert_id_alg = sha256
`;

/** The throwaway CA, TSA key and certificate and openssl TSA config, made with openssl in `dir`. */
const makeTsaFiles = async (dir: string) => {
  const days = '2';
  await makeTestCa(dir, 'esign test TSA root');
  await openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', 'tsa.key'], dir);
  await openssl(
    ['req', '-new', '-key', 'tsa.key', '-out', 'tsa.csr', '-subj', '/CN=esign test TSA/O=esign development'],
    dir,
  );
  writeFileSync(
    join(dir, 'tsa.ext'),
    [
      'basicConstraints=critical,CA:FALSE',
      'keyUsage=critical,digitalSignature',
      'extendedKeyUsage=critical,timeStamping',
      'subjectKeyIdentifier=hash',
      'authorityKeyIdentifier=keyid',
      '',
    ].join('\n'),
  );
  await openssl(
    [
      'x509',
      '-req',
      '-in',
      'tsa.csr',
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-CAcreateserial',
      '-out',
      'tsa.pem',
      '-days',
      days,
      '-extfile',
      'tsa.ext',
    ],
    dir,
  );
  writeFileSync(join(dir, 'serial'), '01\n');
  writeFileSync(join(dir, 'tsa.cnf'), tsaConfig(dir));
};

const readBody = async (req: IncomingMessage, limit: number): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) throw new Error('query too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
};

/** TimeStampResp { status PKIStatusInfo { status 2 = rejection } }. */
const REJECTION = Buffer.from([0x30, 0x05, 0x30, 0x03, 0x02, 0x01, 0x02]);

/**
 * Start a local RFC 3161 TSA on 127.0.0.1 (random port): a throwaway CA and TSA certificate are made
 * with openssl at start-up in a temporary directory, and every query is answered by `openssl ts -reply`
 * (an implementation independent of ours), one at a time (openssl keeps the serial number in a file).
 * With `delayMs`, it stands in for a production TSA instead: every query is answered `delayMs` after
 * it arrived, all of them concurrently, with a token made in-process (`createTokenSigner`, node:crypto:
 * a fraction of a millisecond of CPU, where an openssl process costs several).
 */
export const startTestTsa = async (
  options: {
    port?: number;
    /**
     * The TSA's certificate, key and issuing CA (PEM) instead of throwaway ones, e.g. one issued by
     * `startTestPki` whose certificate names an OCSP responder.
     */
    identity?: { certPem: string; keyPem: string; caCertPem: string };
    /** Answer every query this many ms after it arrived, concurrently (see above). */
    delayMs?: number;
  } = {},
): Promise<TestTsa> => {
  const dir = mkdtempSync(join(tmpdir(), 'esign-tsa-'));
  try {
    if (options.identity) {
      writeFileSync(join(dir, 'ca.pem'), options.identity.caCertPem);
      writeFileSync(join(dir, 'tsa.pem'), options.identity.certPem);
      writeFileSync(join(dir, 'tsa.key'), options.identity.keyPem);
      writeFileSync(join(dir, 'serial'), '01\n');
      writeFileSync(join(dir, 'tsa.cnf'), tsaConfig(dir));
    } else {
      await makeTsaFiles(dir);
    }
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  let mode: TestTsaMode = 'ok';
  let slowMs = 60_000;
  let count = 0;
  let sequence = 0;
  let queue: Promise<unknown> = Promise.resolve();
  const slowTimers = new Set<NodeJS.Timeout>();
  let { delayMs } = options;
  const tokens =
    delayMs === undefined
      ? undefined
      : createTokenSigner({
          keyPem: readFileSync(join(dir, 'tsa.key'), 'utf8'),
          certPem: readFileSync(join(dir, 'tsa.pem'), 'utf8'),
          caCertPem: readFileSync(join(dir, 'ca.pem'), 'utf8'),
        });
  /** Resolves `ms` after `from` (performance.now()); cut short by `stop`. */
  const after = (from: number, ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(
        () => {
          slowTimers.delete(timer);
          resolve();
        },
        Math.max(0, from + ms - performance.now()),
      );
      slowTimers.add(timer);
    });

  const reply = async (query: Buffer): Promise<Buffer> => {
    const id = ++sequence;
    const queryFile = join(dir, `q${id}.tsq`);
    const replyFile = join(dir, `r${id}.tsr`);
    writeFileSync(queryFile, query);
    try {
      await openssl(
        [
          'ts',
          '-reply',
          '-config',
          join(dir, 'tsa.cnf'),
          '-queryfile',
          queryFile,
          '-signer',
          join(dir, 'tsa.pem'),
          '-inkey',
          join(dir, 'tsa.key'),
          '-chain',
          join(dir, 'ca.pem'),
          '-out',
          replyFile,
        ],
        dir,
      );
      return readFileSync(replyFile);
    } finally {
      rmSync(queryFile, { force: true });
      rmSync(replyFile, { force: true });
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const arrived = performance.now();
    count++;
    if (mode === 'down') {
      req.socket.destroy();
      return;
    }
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const query = await readBody(req, 64 * 1024);
    if (mode === 'slow') {
      const timer = setTimeout(() => {
        slowTimers.delete(timer);
        res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(REJECTION);
      }, slowMs);
      slowTimers.add(timer);
      return;
    }
    if (mode === 'garbage') {
      res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(randomBytes(300));
      return;
    }
    if (mode === 'reject') {
      res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(REJECTION);
      return;
    }
    if (tokens && delayMs !== undefined) {
      let body: Buffer;
      try {
        body = tokens.reply(query, ++sequence);
      } catch {
        res.writeHead(400).end();
        return;
      }
      await after(arrived, delayMs);
      res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(body);
      return;
    }
    // openssl keeps the serial number in a file: one reply at a time.
    const next = queue.then(() => reply(query));
    queue = next.catch(() => undefined);
    try {
      const body = await next;
      res.writeHead(200, { 'content-type': 'application/timestamp-reply' }).end(body);
    } catch {
      // A query openssl cannot parse: a real TSA would answer badRequest; a 400 is enough here.
      res.writeHead(400).end();
    }
  };

  const server = createServer((req, res) => {
    handle(req, res).catch(() => {
      res.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/tsa`,
    caCertPem: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    tsaCertPem: readFileSync(join(dir, 'tsa.pem'), 'utf8'),
    caCertFile: join(dir, 'ca.pem'),
    tsaCertFile: join(dir, 'tsa.pem'),
    setMode(next, modeOptions) {
      mode = next;
      if (modeOptions?.slowMs !== undefined) slowMs = modeOptions.slowMs;
      if (tokens && modeOptions?.delayMs !== undefined) delayMs = modeOptions.delayMs;
    },
    requests: () => count,
    async stop() {
      for (const timer of slowTimers) clearTimeout(timer);
      slowTimers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await queue;
      rmSync(dir, { recursive: true, force: true });
    },
  };
};
