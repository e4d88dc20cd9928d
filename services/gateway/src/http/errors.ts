import type { ErrorRequestHandler, Response } from 'express';
import { ServiceError, type TErrorCode } from '@esign/contracts';
import type { Logger } from '@esign/telemetry';

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

/** `{ "error": "…" }` with the status of the code. */
export const sendError = (res: Response, code: TErrorCode, message: string): void => {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.status(HTTP_STATUS[code]).json({ error: message });
};

/** Last middleware: coded errors keep their status; anything else is a bug, logged and answered 500. */
export const errorHandler =
  (logger: Logger): ErrorRequestHandler =>
  (err: unknown, req, res, _next) => {
    if (err instanceof ServiceError) {
      // The rest of an oversized body is not read: close the connection after the answer.
      if (err.code === 'too_large') res.set('Connection', 'close');
      if (err.code === 'internal') logger.error('internal error behind the gateway', { path: req.path, err });
      return sendError(res, err.code, err.code === 'internal' ? 'Internal error; please retry' : err.message);
    }
    const status = (err as { status?: number; type?: string }).status;
    if (status === 413) return sendError(res, 'too_large', 'request body too large');
    if (status === 400 && (err as { type?: string }).type === 'entity.parse.failed') {
      return sendError(res, 'invalid_argument', 'request body is not valid JSON');
    }
    logger.error('unhandled error', { path: req.path, err });
    sendError(res, 'internal', 'Internal error; please retry');
  };
