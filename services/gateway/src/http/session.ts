import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import { ServiceError, SessionVerify, type TSessionPrincipal } from '@esign/contracts';
import type { GatewayDeps } from '../deps';

const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');

/**
 * The dashboard session cookie. Over https it is `__Host-esign_session` (the prefix makes browsers
 * insist on Secure, Path=/ and no Domain, so a sibling subdomain cannot set or shadow it); plain http
 * in local development cannot use the prefix, so there it is `esign_session` without Secure.
 */
export const sessionCookieName = (secure: boolean): string =>
  secure ? '__Host-esign_session' : 'esign_session';

/** The header a state-changing request made with the cookie must carry (see `csrfTokenOf`). */
export const CSRF_HEADER = 'X-CSRF-Token';

const attributes = (secure: boolean): string =>
  // SameSite=Lax: the cookie goes with top-level navigations from elsewhere (a link in an email opens
  // the dashboard signed in) but never with a cross-site POST, fetch or iframe; the Origin check and
  // the token below protect state changes anyway.
  `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;

/** `Set-Cookie` for a new session; it lasts until the session's absolute end (the idle end is the server's). */
export const sessionCookie = (options: { secure: boolean; token: string; expiresAt: string }): string => {
  const maxAge = Math.max(0, Math.floor((Date.parse(options.expiresAt) - Date.now()) / 1000));
  return `${sessionCookieName(options.secure)}=${options.token}; ${attributes(options.secure)}; Max-Age=${maxAge}`;
};

/** `Set-Cookie` that removes the session cookie (sign-out). */
export const clearedSessionCookie = (secure: boolean): string =>
  `${sessionCookieName(secure)}=; ${attributes(secure)}; Max-Age=0`;

/** The value of the named cookie of a request, if it sent one (no cookie library: one name is read). */
export const cookieOf = (req: Request, name: string): string | undefined => {
  const header = req.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
};

/**
 * The CSRF token of a session: HMAC-SHA256 of the session id keyed with the session's `csrfSecret`
 * (base64url). The same for the whole session (the sign-in reply and `GET /api/session` give it to
 * the page), never the secret itself; only someone who can read the page's answers (same origin) has
 * it. The gateway recomputes it from `key.verify-session`, so nothing is stored at the gateway.
 */
export const csrfTokenOf = (session: Pick<TSessionPrincipal, 'sessionId' | 'csrfSecret'>): string =>
  createHmac('sha256', session.csrfSecret).update(`esign-csrf:${session.sessionId}`).digest('base64url');

const SIGN_IN_FIRST =
  'Sign in first: this endpoint takes the dashboard session cookie (POST /api/auth/sign-in), not an API key';
const API_KEY_HERE =
  'API keys do not work on the dashboard endpoints (/api/keys, /api/session): sign in with POST /api/auth/sign-in and use the session cookie';

/** A cookie value worth asking the key service about: 43+ base64url characters, not absurdly long. */
const plausibleToken = (token: string): boolean => /^[A-Za-z0-9_-]{43,128}$/.test(token);

/** A verified dashboard session, with the SHA-256 of its cookie (what sign-out sends). */
export type GatewaySession = TSessionPrincipal & { readonly tokenHash: string };

/** The session of a request's cookie: 401 when missing, malformed, unknown, expired or signed out. */
export const sessionOf = async (req: Request, deps: GatewayDeps): Promise<GatewaySession> => {
  const token = cookieOf(req, sessionCookieName(deps.config.SESSION_COOKIE_SECURE));
  if (!token) {
    throw new ServiceError('unauthenticated', req.get('authorization') ? API_KEY_HERE : SIGN_IN_FIRST);
  }
  if (!plausibleToken(token)) throw new ServiceError('unauthenticated', 'Session expired: sign in again');
  try {
    // Only the hash crosses the bus. No cache: sign-out and expiry take effect on every replica at once.
    const tokenHash = sha256Hex(token);
    return { ...(await deps.bus.request(SessionVerify, { tokenHash })), tokenHash };
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'unauthenticated') {
      throw new ServiceError('unauthenticated', 'Session expired or signed out: sign in again');
    }
    throw err;
  }
};

/** The origin this gateway is reached at: PUBLIC_BASE_URL's, or else the request's own. */
export const ownOrigin = (req: Request, deps: GatewayDeps): string =>
  deps.config.PUBLIC_BASE_URL
    ? new URL(deps.config.PUBLIC_BASE_URL).origin
    : `${req.protocol}://${req.get('host') ?? ''}`;

const originOfUrl = (value: string): string | undefined => {
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
};

/**
 * Where a browser says the request comes from: `Origin`, or `Referer` when a browser left `Origin`
 * out. Either must be this gateway's origin; a request with neither is refused too.
 */
export const checkOrigin = (req: Request, deps: GatewayDeps): void => {
  const origin = req.get('origin');
  const from = origin !== undefined ? originOfUrl(origin) : originOfUrl(req.get('referer') ?? '');
  const own = ownOrigin(req, deps);
  if (from !== own) {
    throw new ServiceError(
      'permission_denied',
      `CSRF check failed: Origin must be ${own} (got ${origin ?? (req.get('referer') ? 'a Referer elsewhere' : 'none')})`,
    );
  }
};

const sameToken = (a: string, b: string): boolean => {
  const x = Buffer.from(sha256Hex(a), 'hex');
  const y = Buffer.from(sha256Hex(b), 'hex');
  return timingSafeEqual(x, y);
};

/** A state-changing request made with the cookie: same origin, and the session's CSRF token. */
export const checkCsrf = (req: Request, deps: GatewayDeps, session: TSessionPrincipal): void => {
  checkOrigin(req, deps);
  const token = req.get(CSRF_HEADER);
  if (!token || !sameToken(token, csrfTokenOf(session))) {
    throw new ServiceError(
      'permission_denied',
      `CSRF check failed: send the session's csrfToken (from the sign-in answer or GET /api/session) in ${CSRF_HEADER}`,
    );
  }
};
