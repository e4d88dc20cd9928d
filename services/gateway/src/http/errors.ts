import type { ErrorRequestHandler, Response } from 'express';
import { BlobError } from '@esign/blob';
import { ServiceError, type TErrorCode } from '@esign/contracts';
import type { Logger } from '@esign/telemetry';
import { RefusedError } from './refusal';
import { markRefused } from './request-metrics';
import { redactSigningPath } from './signing-token';

/** The one table from error codes to HTTP statuses. */
export const HTTP_STATUS: Record<TErrorCode, number> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  conflict: 409,
  too_large: 413,
  rate_limited: 429,
  unavailable: 503,
  internal: 500,
};

/** Seconds a client should wait before retrying after a 503. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 2;

/** Seconds to wait after a 429 of a limit counted behind the gateway. */
export const BEHIND_RATE_LIMIT_RETRY_AFTER_SECONDS = 60;

/** `{ "error": "…" }` with the status of the code. */
export const sendError = (res: Response, code: TErrorCode, message: string): void => {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  if (code === 'unavailable') res.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
  res.status(HTTP_STATUS[code]).json({ error: message });
};

/** What body parsing and routing report, in words a client can act on. */
const FRAMEWORK_MESSAGES: Record<string, string> = {
  'entity.parse.failed': 'request body is not valid JSON',
  'entity.too.large': 'request body too large',
  'charset.unsupported': 'request body charset is not supported: send UTF-8',
  'encoding.unsupported': 'Content-Encoding is not supported: send identity, gzip, deflate or br',
  'request.aborted': 'request aborted by the client',
  'request.size.invalid': 'request body does not match its Content-Length',
  'stream.encoding.set': 'request body could not be read',
};

/**
 * An answer of object storage (a missing object, a refused request): its status is the store's, not
 * the client's. A document whose file is missing is our fault (500), never "malformed request".
 */
const isStorageError = (err: object): boolean =>
  err instanceof BlobError || (err as { name?: unknown }).name === 'S3Error';

/** An error the framework raised with a client-error status (malformed body, bad path encoding, …). */
const frameworkClientError = (err: unknown): { status: number; message: string } | undefined => {
  if (typeof err !== 'object' || err === null || isStorageError(err)) return undefined;
  const { status, statusCode, type } = err as { status?: unknown; statusCode?: unknown; type?: unknown };
  const code = typeof status === 'number' ? status : typeof statusCode === 'number' ? statusCode : 0;
  if (code < 400 || code > 499) return undefined;
  const known = typeof type === 'string' ? FRAMEWORK_MESSAGES[type] : undefined;
  const message =
    known ??
    (err instanceof URIError || (err as Error).message.startsWith('Failed to decode')
      ? 'the request path is not valid percent-encoding'
      : (err as Error).message.includes('Content-Encoding') ||
          (err as Error).message.includes('deflate') ||
          (err as Error).message.includes('gzip')
        ? 'request body does not match its Content-Encoding'
        : 'malformed request');
  return { status: code, message };
};

/** Last middleware: coded errors keep their status; framework 4xx keep theirs; anything else is a bug (500). */
export const errorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (err: unknown, req, res, _next) => {
    if (err instanceof ServiceError) {
      if (err instanceof RefusedError) markRefused(res, err.reason);
      // The rest of an oversized body is not read: close the connection after the answer.
      if (err.code === 'too_large') res.set('Connection', 'close');
      // A limit counted behind the gateway (the key service's sign-in attempts per email) says when in
      // its message; the header gets a minute, so clients that honour it do not hammer.
      if (err.code === 'rate_limited' && res.getHeader('Retry-After') === undefined) {
        res.set('Retry-After', String(BEHIND_RATE_LIMIT_RETRY_AFTER_SECONDS));
      }
      if (err.code === 'internal')
        logger.error('internal error behind the gateway', { path: redactSigningPath(req.path), err });
      return sendError(res, err.code, err.code === 'internal' ? 'Internal error; please retry' : err.message);
    }
    const clientError = frameworkClientError(err);
    if (clientError) {
      if (clientError.status === 413) {
        markRefused(res, 'size');
        return sendError(res, 'too_large', clientError.message);
      }
      if (res.headersSent) return void res.destroy();
      res.set('Connection', 'close');
      return void res.status(clientError.status).json({ error: clientError.message });
    }
    logger.error('unhandled error', { path: redactSigningPath(req.path), err });
    sendError(res, 'internal', 'Internal error; please retry');
  };
