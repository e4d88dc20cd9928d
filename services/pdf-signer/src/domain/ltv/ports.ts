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
