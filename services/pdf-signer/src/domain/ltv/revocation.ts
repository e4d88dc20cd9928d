import { createHash, verify as verifySignature, X509Certificate } from 'node:crypto';
import { ServiceError } from '@esign/contracts';
import { derElement, derNull, derOctetString, derOid, derSequence } from '../der/encode-der';
import { derBytes, derContent, readDer, readDerChildren, readOid, readTime } from '../der/read-der';
import type { DerNode } from '../der/read-der';
import type { LtvObserver, RevocationFetcher } from './ports';

/**
 * Revocation data for PAdES B-LT: for every certificate that names an OCSP responder (Authority
 * Information Access) or a CRL (CRL Distribution Points), an OCSP response (preferred) or the CRL,
 * fetched with a short timeout, checked (signed by the issuer or a responder it delegated to, status
 * good, fresh) and kept in memory until shortly before its nextUpdate, when it is fetched again in the
 * background. Signing only reads the cache: no network on the hot path. An answer the shared DER
 * reader cannot read (a malformed time, say) throws, and its source counts as one that failed.
 */

/** What is known about one certificate's revocation status. */
export type RevocationState =
  | {
      readonly status: 'good';
      readonly kind: 'ocsp' | 'crl';
      readonly data: Buffer;
      readonly nextUpdate?: Date;
    }
  | { readonly status: 'revoked'; readonly source: string }
  /** It names sources but none answered with a usable answer (a warning was logged). */
  | { readonly status: 'unavailable' }
  /** It names no OCSP responder or CRL, or its issuer is not known: nothing to fetch. */
  | { readonly status: 'none' };

export interface RevocationSettings {
  /** Longest one OCSP or CRL request may take (ms). */
  readonly timeoutMs: number;
  /** Refetch this long before nextUpdate (ms); without nextUpdate, every `refreshMs`. */
  readonly refreshMs?: number;
  /** Largest OCSP response or CRL read (bytes). */
  readonly maxBytes?: number;
}

export interface RevocationCache {
  /**
   * Fetch (awaited) the revocation data of `chain` (a certificate followed by its issuers, DER), as
   * at start-up. Later refreshes run in the background.
   */
  prepare(chain: readonly Buffer[]): Promise<void>;
  /** The same, not awaited, for certificates seen the first time (the TSA's, from a token). */
  notice(chain: readonly Buffer[]): void;
  /**
   * OCSP responses and CRLs known for these certificates (read from the cache only). Throws
   * `unavailable` when one of them is known to be revoked.
   */
  dataFor(certificates: readonly Buffer[]): { ocsps: Buffer[]; crls: Buffer[] };
  state(certificate: Buffer): RevocationState | undefined;
  /** Stop the refresh timers. */
  close(): void;
}

type Log = (message: string, fields?: Record<string, unknown>) => void;

const OID = {
  aia: '1.3.6.1.5.5.7.1.1',
  ocspMethod: '1.3.6.1.5.5.7.48.1',
  crlDp: '2.5.29.31',
  basicOcsp: '1.3.6.1.5.5.7.48.1.1',
  ocspSigning: '1.3.6.1.5.5.7.3.9',
  sha1: '1.3.14.3.2.26',
};

const HASH_OF_SIGNATURE: Record<string, string> = {
  '1.2.840.113549.1.1.5': 'sha1',
  '1.2.840.113549.1.1.11': 'sha256',
  '1.2.840.113549.1.1.12': 'sha384',
  '1.2.840.113549.1.1.13': 'sha512',
  '1.2.840.10045.4.1': 'sha1',
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
};

const children = (buf: Buffer, node: DerNode) => readDerChildren(buf, node);

/** The parts of a certificate this needs: its serial, issuer and subject names, key, extensions. */
const certificateParts = (cert: Buffer) => {
  const [tbs] = children(cert, readDer(cert, 0));
  if (!tbs) throw new Error('revocation: not a certificate');
  const fields = children(cert, tbs);
  const offset = fields[0]?.tag === 0xa0 ? 1 : 0;
  const [serial, , issuer, , subject, spki] = fields.slice(offset);
  if (!serial || !issuer || !subject || !spki) throw new Error('revocation: not a certificate');
  const extensions = new Map<string, Buffer>();
  const extField = fields.find((f) => f.tag === 0xa3);
  if (extField) {
    const [list] = children(cert, extField);
    for (const ext of list ? children(cert, list) : []) {
      const parts = children(cert, ext);
      const id = parts[0];
      const value = parts[parts.length - 1];
      if (id && value) extensions.set(readOid(cert, id), Buffer.from(derContent(cert, value)));
    }
  }
  const [, keyBits] = children(cert, spki);
  return {
    serial: Buffer.from(derContent(cert, serial)),
    issuer: Buffer.from(derBytes(cert, issuer)),
    subject: Buffer.from(derBytes(cert, subject)),
    // The public key's bits without the BIT STRING's unused-bits byte.
    key: keyBits ? Buffer.from(derContent(cert, keyBits).subarray(1)) : Buffer.alloc(0),
    extensions,
  };
};

/** Every URI GeneralName ([6] IMPLICIT IA5String) inside a DER value. */
const urisIn = (buf: Buffer, node: DerNode, out: string[] = []): string[] => {
  if (node.tag === 0x86) out.push(derContent(buf, node).toString('latin1'));
  else if (node.tag & 0x20) for (const child of children(buf, node)) urisIn(buf, child, out);
  return out;
};

/** The OCSP responders and CRL addresses a certificate names (http only). */
export const revocationSources = (cert: Buffer): { ocsp: string[]; crl: string[] } => {
  const { extensions } = certificateParts(cert);
  const ocsp: string[] = [];
  const aia = extensions.get(OID.aia);
  if (aia) {
    for (const access of children(aia, readDer(aia, 0))) {
      const [method, location] = children(aia, access);
      if (method && location && readOid(aia, method) === OID.ocspMethod) urisIn(aia, location, ocsp);
    }
  }
  const dp = extensions.get(OID.crlDp);
  const crl = dp ? urisIn(dp, readDer(dp, 0)) : [];
  const http = (url: string) => /^http:\/\//i.test(url);
  return { ocsp: ocsp.filter(http), crl: crl.filter(http) };
};

/** An OCSP request (RFC 6960) for one certificate, CertID with SHA-1 as responders expect. */
export const encodeOcspRequest = (cert: Buffer, issuer: Buffer): Buffer => {
  const c = certificateParts(cert);
  const i = certificateParts(issuer);
  const sha1 = (b: Buffer) => createHash('sha1').update(b).digest();
  const certId = derSequence(
    derSequence(derOid(OID.sha1), derNull()),
    derOctetString(sha1(i.subject)),
    derOctetString(sha1(i.key)),
    derElement(0x02, c.serial),
  );
  return derSequence(derSequence(derSequence(derSequence(certId))));
};

const checkSignature = (algorithm: string, data: Buffer, signer: X509Certificate, signature: Buffer) => {
  const hash = HASH_OF_SIGNATURE[algorithm];
  if (!hash) throw new Error(`revocation: unsupported signature algorithm ${algorithm}`);
  if (!verifySignature(hash, data, signer.publicKey, signature)) {
    throw new Error('revocation: the signature does not verify');
  }
};

const SKEW_MS = 5 * 60_000;

const checkFresh = (thisUpdate: Date, nextUpdate: Date | undefined, now: Date) => {
  if (thisUpdate.getTime() > now.getTime() + SKEW_MS) throw new Error('revocation: issued in the future');
  if (nextUpdate && nextUpdate.getTime() < now.getTime())
    throw new Error('revocation: expired (nextUpdate passed)');
};

/**
 * Read and check an OCSP response for `cert`: successful, signed by the issuer or by a responder
 * certificate the issuer issued for OCSP signing, about this serial, fresh.
 */
export const checkOcspResponse = (
  response: Buffer,
  cert: Buffer,
  issuer: Buffer,
  now = new Date(),
): { status: 'good' | 'revoked' | 'unknown'; thisUpdate: Date; nextUpdate?: Date } => {
  const [status, bytesWrapper] = children(response, readDer(response, 0));
  if (!status || derContent(response, status)[0] !== 0) throw new Error('OCSP: responder answered an error');
  if (!bytesWrapper) throw new Error('OCSP: no response bytes');
  const [responseBytes] = children(response, bytesWrapper);
  const [type, octets] = responseBytes ? children(response, responseBytes) : [];
  if (!type || !octets || readOid(response, type) !== OID.basicOcsp)
    throw new Error('OCSP: not a basic response');
  const basic = Buffer.from(derContent(response, octets));
  const [tbs, algorithm, signature, certsField] = children(basic, readDer(basic, 0));
  if (!tbs || !algorithm || !signature) throw new Error('OCSP: malformed basic response');
  const [algOid] = children(basic, algorithm);
  const issuerX509 = new X509Certificate(issuer);
  // The signer: the issuer itself, or a delegated responder it issued with id-kp-OCSPSigning.
  const candidates = [issuerX509];
  if (certsField) {
    const [list] = children(basic, certsField);
    for (const node of list ? children(basic, list) : []) {
      const responder = new X509Certificate(derBytes(basic, node));
      if (
        responder.checkIssued(issuerX509) &&
        responder.verify(issuerX509.publicKey) &&
        (responder.keyUsage ?? []).includes(OID.ocspSigning)
      ) {
        candidates.push(responder);
      }
    }
  }
  const sigValue = derContent(basic, signature).subarray(1);
  const tbsBytes = derBytes(basic, tbs);
  const algName = algOid ? readOid(basic, algOid) : '';
  if (
    !candidates.some((signer) => {
      try {
        checkSignature(algName, tbsBytes, signer, sigValue);
        return true;
      } catch {
        return false;
      }
    })
  ) {
    throw new Error('OCSP: not signed by the issuer or a responder it delegated to');
  }
  const data = children(basic, tbs);
  const list = data.find((n, index) => n.tag === 0x30 && index > 0 && data[index - 1]?.tag === 0x18);
  if (!list) throw new Error('OCSP: no responses');
  const serial = certificateParts(cert).serial;
  for (const single of children(basic, list)) {
    const [certId, certStatus, thisUpdateNode, ...rest] = children(basic, single);
    if (!certId || !certStatus || !thisUpdateNode) continue;
    const idSerial = children(basic, certId)[3];
    if (!idSerial || !derContent(basic, idSerial).equals(serial)) continue;
    const thisUpdate = readTime(basic, thisUpdateNode);
    const nextNode = rest.find((n) => n.tag === 0xa0);
    const inner = nextNode ? children(basic, nextNode)[0] : undefined;
    const nextUpdate = inner ? readTime(basic, inner) : undefined;
    checkFresh(thisUpdate, nextUpdate, now);
    const value = certStatus.tag === 0x80 ? 'good' : certStatus.tag === 0xa1 ? 'revoked' : 'unknown';
    return { status: value, thisUpdate, ...(nextUpdate ? { nextUpdate } : {}) };
  }
  throw new Error('OCSP: the response is not about this certificate');
};

/** Read and check a CRL for `cert`: issued and signed by `issuer`, fresh; whether it lists the serial. */
export const checkCrl = (
  crl: Buffer,
  cert: Buffer,
  issuer: Buffer,
  now = new Date(),
): { status: 'good' | 'revoked'; thisUpdate: Date; nextUpdate?: Date } => {
  const [tbs, algorithm, signature] = children(crl, readDer(crl, 0));
  if (!tbs || !algorithm || !signature) throw new Error('CRL: malformed');
  const [algOid] = children(crl, algorithm);
  checkSignature(
    algOid ? readOid(crl, algOid) : '',
    derBytes(crl, tbs),
    new X509Certificate(issuer),
    derContent(crl, signature).subarray(1),
  );
  const fields = children(crl, tbs);
  const at = fields[0]?.tag === 0x02 ? 1 : 0;
  const [, issuerName, thisNode, maybeNext, ...rest] = fields.slice(at);
  const parts = certificateParts(cert);
  if (!issuerName || !derBytes(crl, issuerName).equals(parts.issuer)) throw new Error('CRL: another issuer');
  if (!thisNode) throw new Error('CRL: no thisUpdate');
  const thisUpdate = readTime(crl, thisNode);
  const hasNext = maybeNext && (maybeNext.tag === 0x17 || maybeNext.tag === 0x18);
  const nextUpdate = hasNext ? readTime(crl, maybeNext) : undefined;
  checkFresh(thisUpdate, nextUpdate, now);
  const revokedList = (hasNext ? rest : [maybeNext, ...rest]).find((n) => n?.tag === 0x30);
  for (const entry of revokedList ? children(crl, revokedList) : []) {
    const [serial] = children(crl, entry);
    if (serial && derContent(crl, serial).equals(parts.serial)) {
      return { status: 'revoked', thisUpdate, ...(nextUpdate ? { nextUpdate } : {}) };
    }
  }
  return { status: 'good', thisUpdate, ...(nextUpdate ? { nextUpdate } : {}) };
};

/** A responder's host (and port), as metrics name it: never its path. */
const providerOf = (url: string): string => {
  try {
    return new URL(url).host || 'unknown';
  } catch {
    return 'unknown';
  }
};

const fingerprint = (cert: Buffer) => createHash('sha256').update(cert).digest('hex');

/** The issuer of `cert` among `chain`, by name and signature. */
const issuerIn = (cert: Buffer, chain: readonly Buffer[]): Buffer | undefined => {
  const x = new X509Certificate(cert);
  return chain.find((candidate) => {
    if (candidate.equals(cert)) return false;
    const c = new X509Certificate(candidate);
    return x.checkIssued(c) && x.verify(c.publicKey);
  });
};

/**
 * A cache of checked revocation data, by certificate SHA-256. `warn` gets responders that did not
 * answer; `error` gets certificates found revoked.
 */
export const createRevocationCache = (
  options: {
    /** How OCSP responses and CRLs are fetched (each request within its own time limit). */
    readonly fetcher: RevocationFetcher;
    /** Refetch this long before nextUpdate (ms); without nextUpdate, every `refreshMs`. */
    readonly refreshMs?: number;
    /** Told of every OCSP and CRL request (provider, outcome, time) and of the soonest nextUpdate held. */
    readonly observer?: LtvObserver;
  },
  log: { warn?: Log; error?: Log } = {},
): RevocationCache => {
  const { fetcher, observer } = options;
  const refreshMs = options.refreshMs ?? 60 * 60_000;
  const states = new Map<string, RevocationState>();
  const pending = new Map<string, Promise<void>>();
  const timers = new Set<NodeJS.Timeout>();
  let closed = false;

  const observed = (kind: 'ocsp' | 'crl', url: string, ok: boolean, started: number) =>
    observer?.request({ kind, provider: providerOf(url), ok, seconds: (performance.now() - started) / 1000 });

  /** The soonest nextUpdate of the answers held (a few certificates: read after each change only). */
  const soonestNextUpdate = (): number | undefined => {
    let soonest: number | undefined;
    for (const state of states.values()) {
      if (state.status !== 'good' || !state.nextUpdate) continue;
      const at = state.nextUpdate.getTime();
      if (soonest === undefined || at < soonest) soonest = at;
    }
    return soonest;
  };

  const fetchOne = async (cert: Buffer, issuer: Buffer | undefined): Promise<RevocationState> => {
    const sources = revocationSources(cert);
    if (!issuer || (sources.ocsp.length === 0 && sources.crl.length === 0)) return { status: 'none' };
    const subject = new X509Certificate(cert).subject.replace(/\n/g, ', ');
    const failures: string[] = [];
    for (const url of sources.ocsp) {
      const started = performance.now();
      try {
        const answer = await fetcher.fetchOcsp(url, encodeOcspRequest(cert, issuer));
        const checked = checkOcspResponse(answer, cert, issuer);
        // An answer that checks out, whatever it says: the responder works.
        observed('ocsp', url, true, started);
        if (checked.status === 'revoked') return { status: 'revoked', source: url };
        if (checked.status === 'good') {
          return {
            status: 'good',
            kind: 'ocsp',
            data: answer,
            ...(checked.nextUpdate ? { nextUpdate: checked.nextUpdate } : {}),
          };
        }
        failures.push(`${url}: status unknown`);
      } catch (err) {
        observed('ocsp', url, false, started);
        failures.push(`${url}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    for (const url of sources.crl) {
      const started = performance.now();
      try {
        let answer = await fetcher.fetchCrl(url);
        // A PEM CRL, as some servers publish: its DER.
        if (answer.subarray(0, 10).toString('latin1') === '-----BEGIN') {
          answer = Buffer.from(answer.toString('latin1').replace(/-----[^-]+-----|\s/g, ''), 'base64');
        }
        const checked = checkCrl(answer, cert, issuer);
        observed('crl', url, true, started);
        if (checked.status === 'revoked') return { status: 'revoked', source: url };
        return {
          status: 'good',
          kind: 'crl',
          data: answer,
          ...(checked.nextUpdate ? { nextUpdate: checked.nextUpdate } : {}),
        };
      } catch (err) {
        observed('crl', url, false, started);
        failures.push(`${url}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
    log.warn?.('revocation data unavailable: sealing without it for this certificate', {
      certificate: subject,
      failures,
    });
    return { status: 'unavailable' };
  };

  const schedule = (state: RevocationState, refetch: () => Promise<void>) => {
    // A revocation is final: nothing more to ask.
    if (closed || state.status === 'none' || state.status === 'revoked') return;
    const next = state.status === 'good' ? state.nextUpdate : undefined;
    // Before nextUpdate (when a tenth of the time left remains, and a minute more); a source that
    // did not answer is asked again every minute, so that a responder back up is used soon.
    const delay =
      state.status !== 'good'
        ? 60_000
        : next
          ? Math.max(1_000, Math.min(refreshMs, (next.getTime() - Date.now()) * 0.9 - 60_000))
          : refreshMs;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void refetch();
    }, delay);
    timer.unref();
    timers.add(timer);
  };

  const load = (cert: Buffer, chain: readonly Buffer[]): Promise<void> => {
    const key = fingerprint(cert);
    const running = pending.get(key);
    if (running) return running;
    const task = (async () => {
      let state: RevocationState;
      try {
        state = await fetchOne(cert, issuerIn(cert, chain));
      } catch (err) {
        log.warn?.('revocation check failed', { err: err instanceof Error ? err.message : String(err) });
        state = { status: 'unavailable' };
      }
      const previous = states.get(key);
      // A revocation stays, whatever a later answer (or a responder down) says.
      if (previous?.status === 'revoked') return;
      // A responder that stops answering does not drop data that is still fresh.
      if (
        state.status === 'unavailable' &&
        previous?.status === 'good' &&
        (!previous.nextUpdate || previous.nextUpdate.getTime() > Date.now())
      ) {
        state = previous;
      }
      if (state.status === 'revoked') {
        log.error?.('CERTIFICATE REVOKED: refusing to seal with it', {
          certificate: new X509Certificate(cert).subject.replace(/\n/g, ', '),
          source: state.source,
        });
      }
      states.set(key, state);
      observer?.revocationExpiry(soonestNextUpdate());
      schedule(state, () => load(cert, chain));
    })().finally(() => pending.delete(key));
    pending.set(key, task);
    return task;
  };

  const prepare = async (chain: readonly Buffer[]) => {
    await Promise.all(
      chain.filter((cert) => !states.has(fingerprint(cert))).map((cert) => load(cert, chain)),
    );
  };

  return {
    prepare,
    notice(chain) {
      void prepare(chain);
    },
    dataFor(certificates) {
      const ocsps: Buffer[] = [];
      const crls: Buffer[] = [];
      for (const cert of certificates) {
        const state = states.get(fingerprint(cert));
        if (state?.status === 'revoked') {
          throw new ServiceError(
            'unavailable',
            `a certificate of the seal is revoked (${new X509Certificate(cert).subject.replace(/\n/g, ', ')}): refusing to seal`,
          );
        }
        if (state?.status === 'good') {
          if (state.nextUpdate && state.nextUpdate.getTime() < Date.now()) continue;
          const list = state.kind === 'ocsp' ? ocsps : crls;
          if (!list.some((b) => b.equals(state.data))) list.push(state.data);
        }
      }
      return { ocsps, crls };
    },
    state: (cert) => states.get(fingerprint(cert)),
    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
};
