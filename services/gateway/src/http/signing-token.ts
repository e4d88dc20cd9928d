import { createHash } from 'node:crypto';

/**
 * The token of a signing link (`/s/<token>`): 32 random bytes, base64url (43 characters), made by the
 * mailer. The gateway only ever hashes it (document-store stores and finds the SHA-256 alone) and never
 * writes it anywhere: request logs and traces see `/s/:token` (`redactSigningPath`). An envelope's
 * links (`/e/<token>`) are the same kind of token, redacted as `/e/:token`.
 */
export const SIGNING_TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export const isSigningToken = (value: string): boolean => SIGNING_TOKEN_PATTERN.test(value);

/** SHA-256 hex of the token's text, as the mailer computed it (`signing.*` take this). */
export const signingTokenHash = (token: string): string => createHash('sha256').update(token).digest('hex');

/** A path with a signing link's token replaced by `:token`, for logs and traces. */
export const redactSigningPath = (path: string): string => path.replace(/^\/([se])\/[^/?#]*/, '/$1/:token');
