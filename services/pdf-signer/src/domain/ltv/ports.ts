/**
 * What long-term validation needs from the network, as ports: the TSAs that timestamp signatures and
 * the OCSP responders and CRL servers that vouch for certificates. The domain builds the requests
 * and checks the answers; the adapters in `src/adapters/` only carry bytes (HTTP, timeouts, size
 * limits). Tests pass typed fakes.
 */

/** One RFC 3161 time-stamping authority: a TimeStampReq in, a TimeStampResp out. */
export interface TimestampAuthority {
  /** Where it is, as logged and recorded in the seal's audit event: no credentials, no query. */
  readonly url: string;
  /** Its host (and port), from the configuration: how metrics name it (never a path or query). */
  readonly provider: string;
  /**
   * Send a DER TimeStampReq and answer the DER TimeStampResp. Throws `TimestampAuthorityError`
   * with the reason when the authority gave no usable answer (HTTP status, too large, too slow),
   * or whatever error the transport met.
   */
  request(query: Buffer): Promise<Buffer>;
}

/** An authority's answer that cannot be used; its message is the reason, as logged. */
export class TimestampAuthorityError extends Error {
  override readonly name = 'TimestampAuthorityError';
}

/** Fetches revocation data: OCSP responses and CRLs, as their servers send them. */
export interface RevocationFetcher {
  /** POST a DER OCSP request to a responder; its answer. Throws when there is none (status, size, time). */
  fetchOcsp(url: string, request: Buffer): Promise<Buffer>;
  /** GET a CRL; its bytes as served (DER, or PEM as some servers publish). Throws as `fetchOcsp`. */
  fetchCrl(url: string): Promise<Buffer>;
}

/**
 * One request to a TSA, an OCSP responder or a CRL server, as metrics count it: `ok` when its answer
 * was usable (a granted token over our hash; an OCSP response or CRL that checks out).
 */
export interface LtvRequest {
  readonly kind: 'timestamp' | 'ocsp' | 'crl';
  /** The server's host (and port): from TSA_URLS or the certificate chain, so a bounded set. */
  readonly provider: string;
  readonly ok: boolean;
  readonly seconds: number;
}

/**
 * Told what long-term validation did on the network, for metrics (a signing worker passes it back to
 * the pool, which records it). Called on the signing path: it must only note values down.
 */
export interface LtvObserver {
  /** A request to a TSA, an OCSP responder or a CRL server ended. */
  request(request: LtvRequest): void;
  /** The certificate of the TSA whose token was just used expires at `notAfter` (ms since the epoch). */
  timestampCertificate(notAfter: number): void;
  /**
   * The revocation cache changed: the soonest nextUpdate of the answers it holds (ms since the epoch),
   * undefined when it holds none with a nextUpdate.
   */
  revocationExpiry(nextUpdate: number | undefined): void;
}
