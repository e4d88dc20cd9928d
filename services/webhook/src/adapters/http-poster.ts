import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { ResolvedAddress } from '../domain/ssrf';

/** What one attempt came to. */
export interface PostOutcome {
  /** The receiver's status, or null when it gave none (connection refused, timeout, TLS failure). */
  readonly statusCode: number | null;
  readonly latencyMs: number;
  /** The first bytes of the answer (up to the read limit). */
  readonly response: Buffer | null;
  readonly error: string | null;
}

/** One POST of an attempt, to the address the SSRF check approved. */
export interface PinnedPost {
  readonly url: URL;
  readonly address: ResolvedAddress;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly timeoutMs: number;
  readonly maxBytes: number;
}

/** Sends the attempts. `node:http(s)` in production (`createHttpPoster`); tests use real receivers. */
export interface HttpPoster {
  post(request: PinnedPost): Promise<PostOutcome>;
}

/**
 * POST `body` to `url`, connecting to `address` only (the address the SSRF check approved: the host
 * name is not resolved again, so a DNS answer that changes in between cannot redirect the request).
 * TLS still verifies the certificate against the URL's host name (SNI too). No connection reuse, no
 * redirects; at most `maxBytes` of the answer are read, and the whole exchange is cut at `timeoutMs`.
 */
export const postPinned = (options: PinnedPost): Promise<PostOutcome> => {
  const { url, address, body, timeoutMs, maxBytes } = options;
  const started = performance.now();
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) callback(null, [{ address: address.address, family: address.family }]);
    else callback(null, address.address, address.family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<PostOutcome>((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<PostOutcome, 'latencyMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ ...outcome, latencyMs: Math.round(performance.now() - started) });
    };
    const req = send(
      {
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(body)) },
        lookup: pinned,
        agent: false,
        // SNI carries a host name only (never an IP literal, RFC 6066).
        ...(url.protocol === 'https:' && isIP(url.hostname.replace(/^\[(.*)\]$/, '$1')) === 0
          ? { servername: url.hostname }
          : {}),
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          finish({ statusCode: res.statusCode ?? null, response: Buffer.concat(chunks), error: null });
        res.on('data', (chunk: Buffer) => {
          const room = maxBytes - size;
          if (room > 0) chunks.push(chunk.subarray(0, room));
          size += chunk.length;
          // Enough read: the rest of the answer is never taken in.
          if (size >= maxBytes) done();
        });
        res.on('end', done);
        res.on('error', done);
      },
    );
    const timer = setTimeout(
      () => finish({ statusCode: null, response: null, error: `timed out after ${timeoutMs} ms` }),
      timeoutMs,
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      finish({
        statusCode: null,
        response: null,
        error: err.code ? `${err.code}: ${err.message}` : err.message,
      }),
    );
    req.end(body);
  });
};

/** The HTTP client of the delivery loop: `postPinned`, one connection per attempt. */
export const createHttpPoster = (): HttpPoster => ({ post: postPinned });
