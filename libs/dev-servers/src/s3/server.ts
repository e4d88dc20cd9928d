import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dispatch } from './dispatch';
import { S3Failure } from './failures';
import { parseQuery, sendFailure } from './http';
import { sweepExpired } from './lifecycle';
import { openStore } from './store';

/**
 * A small S3-protocol server for development, tests and benchmarks: the subset of the S3 API that the
 * `minio` client and presigned URLs use, served by node:http with objects as files on disk.
 *
 * What it does: buckets (create, head, delete, location, list), objects (put, get with ranges and
 * `response-*` overrides, head, delete, ListObjectsV2 and V1 with prefix, delimiter and pagination,
 * multi-delete, copy within and across buckets), multipart uploads (initiate, part, complete, abort, list uploads and parts), bucket
 * lifecycle (stored; `Expiration.Days` rules for a prefix are honoured by a periodic sweep), expiry of
 * presigned URLs (`X-Amz-Date` + `X-Amz-Expires`), S3 XML errors.
 *
 * What it leaves out, on purpose: credentials and signatures are not checked (any key is accepted);
 * ETags are unique tokens, not MD5 digests, and Content-MD5 is not verified; no versioning, ACLs,
 * policies, tagging, part copies or conditional requests (501 NotImplemented, so nothing is silently
 * misread as a plain object write); multipart uploads in progress do not survive a restart.
 *
 * One file per concern: `storage.ts` (the on-disk format) and `store.ts` (the in-memory index over
 * it), `xml.ts`, `http.ts` (bodies and responses), `listing.ts`, `objects.ts`, `copy.ts`, `multipart.ts`,
 * `lifecycle.ts`, `buckets.ts`, and `dispatch.ts`, which maps a request to one of them.
 */

export interface S3ServerOptions {
  /** Folder that holds the buckets; created when missing and re-read at start. */
  directory: string;
  /** TCP port; 0 (the default) picks a free one. */
  port?: number;
  /** Listening address; 127.0.0.1 by default. */
  host?: string;
  /** Region reported by GET ?location; us-east-1 by default. */
  region?: string;
  /** How often lifecycle expiration rules are applied; one hour by default. */
  lifecycleSweepMs?: number;
}

export interface S3Server {
  readonly endpoint: string;
  readonly port: number;
  readonly region: string;
  /** Apply the buckets' lifecycle expiration rules as of `now`; returns how many objects were deleted. */
  sweepExpired(now?: number): number;
  /** Close the listener and every connection; the files stay. */
  stop(): Promise<void>;
}

/** Start the S3-protocol server on `options.directory`; resolves once it listens. */
export const startS3Server = async (options: S3ServerOptions): Promise<S3Server> => {
  const store = openStore({ root: options.directory, region: options.region ?? 'us-east-1' });

  const server = createServer({ requestTimeout: 0, headersTimeout: 70_000, noDelay: true }, (req, res) => {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const fail = (err: unknown) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const failure =
        err instanceof S3Failure
          ? err
          : err instanceof URIError
            ? new S3Failure(400, 'InvalidURI', 'Could not parse the specified URI')
            : new S3Failure(500, 'InternalError', err instanceof Error ? err.message : String(err));
      sendFailure(store, req, res, failure, path);
    };
    try {
      if (!path.startsWith('/')) throw new S3Failure(400, 'InvalidURI', 'Could not parse the specified URI');
      const pending = dispatch(store, req, res, path, q < 0 ? undefined : parseQuery(url.slice(q + 1)));
      if (pending) pending.catch(fail);
    } catch (err) {
      fail(err);
    }
  });
  // Clients keep connections for a while (minio-js and Node's agent); never be the one to drop first.
  server.keepAliveTimeout = 65_000;

  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });

  sweepExpired(store);
  const sweeper = setInterval(() => sweepExpired(store), options.lifecycleSweepMs ?? 3_600_000);
  sweeper.unref();

  return {
    endpoint: `http://${options.host ?? '127.0.0.1'}:${port}`,
    port,
    region: store.region,
    sweepExpired: (now) => sweepExpired(store, now),
    stop: () =>
      new Promise<void>((resolve, reject) => {
        clearInterval(sweeper);
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
};
