import { z } from 'zod';

/**
 * The error codes every service may answer with. Only the gateway maps them to HTTP statuses.
 */
export const ZErrorCode = z.enum([
  /** A field is missing or invalid; the message names the field. */
  'invalid_argument',
  /** No credentials, or credentials that are unknown or revoked. */
  'unauthenticated',
  /** Authenticated, but the account may not do this (for example: plan without API access). */
  'permission_denied',
  /** The addressed resource does not exist for this caller. */
  'not_found',
  /** The request conflicts with the current state (for example: a duplicate). */
  'conflict',
  /** An upload or value is larger than allowed. */
  'too_large',
  /** Too many requests in a short window. */
  'rate_limited',
  /** A dependency did not answer (no responders, timeout, connection refused). */
  'unavailable',
  /** A bug or an unexpected failure; details are only in the logs. */
  'internal',
]);
export type TErrorCode = z.infer<typeof ZErrorCode>;

/** The one error type services throw; handlers turn it into the reply envelope. */
export class ServiceError extends Error {
  override readonly name = 'ServiceError';
  constructor(
    readonly code: TErrorCode,
    message: string,
    /** The request field at fault, when there is one. */
    readonly field?: string,
  ) {
    super(message);
  }
}

export const ZErrorBody = z.object({
  code: ZErrorCode,
  message: z.string(),
  field: z.string().optional(),
});
export type TErrorBody = z.infer<typeof ZErrorBody>;

/** Socket error codes that mean a dependency could not be reached or dropped the connection. */
const CONNECTION_ERRORS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/**
 * True when an error is a failed or dropped connection (the other side is down or out of reach), as
 * opposed to an answer: such a failure is `unavailable`, not `internal`.
 */
export const isConnectionError = (err: unknown): boolean =>
  err instanceof Error &&
  (CONNECTION_ERRORS.has((err as Error & { code?: unknown }).code as string) ||
    err.message === 'socket hang up');
