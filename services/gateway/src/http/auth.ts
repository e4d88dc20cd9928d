import { createHash, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';
import {
  KeyVerify,
  LIVE_KEY_PREFIX,
  SANDBOX_TOKEN_PREFIX,
  ServiceError,
  type TPrincipal,
} from '@esign/contracts';
import type { GatewayDeps } from '../deps';
import type { AuthKind, CallerOf } from '../api/operation';
import { clientIp } from './client-info';
import { RefusedError } from './refusal';
import { checkCsrf, sessionOf } from './session';

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');

/** The bearer token of a request, if it sent one. */
const bearerOf = (req: Request): string | undefined => {
  const header = req.get('authorization');
  const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  return match?.[1];
};

const SANDBOX_ONLY =
  'The sandbox token works only on POST /api/v1/sandbox/sign; this endpoint needs a live API key: send "Authorization: Bearer <API_KEY>" (svc_live_…)';
const LIVE_KEY_ON_SANDBOX =
  'This endpoint takes the public sandbox token, not a live API key: send "Authorization: Bearer <SANDBOX_TOKEN>" (svc_sandbox_…, shown on /docs)';

const sameSecret = (a: string, b: string): boolean => {
  const x = Buffer.from(sha256Hex(a), 'hex');
  const y = Buffer.from(sha256Hex(b), 'hex');
  return timingSafeEqual(x, y);
};

/**
 * Failed authentications per client IP are counted, and an IP past the limit is refused before its key
 * is even looked up: guessing keys costs the key service nothing and is slowed down. Unknown keys are
 * remembered for a short while too, so that repeating one does not ask the key service again.
 */
const refuseGuessing = (req: Request, res: Response, deps: GatewayDeps): void => {
  const { count, resetMs } = deps.rateCounter.count(`authfail:${clientIp(req)}`);
  if (count < deps.config.AUTH_FAILURES_PER_MINUTE) return;
  res.set('Retry-After', String(Math.max(1, Math.ceil(resetMs / 1000))));
  throw new RefusedError(
    'rate_limited',
    'Too many failed authentications from this address; retry later',
    'auth_failures',
  );
};

const failed = (req: Request, deps: GatewayDeps, message: string): ServiceError => {
  deps.rateCounter.hit(`authfail:${clientIp(req)}`);
  return new ServiceError('unauthenticated', message);
};

/** A live API key: 401 when missing, malformed, unknown or revoked; 403 when the plan has no API access. */
const apiKeyPrincipal = async (req: Request, res: Response, deps: GatewayDeps): Promise<TPrincipal> => {
  refuseGuessing(req, res, deps);
  const key = bearerOf(req);
  if (!key) {
    throw failed(req, deps, 'Missing API key: send "Authorization: Bearer <API_KEY>"');
  }
  if (key.startsWith(SANDBOX_TOKEN_PREFIX)) throw failed(req, deps, SANDBOX_ONLY);
  if (!key.startsWith(LIVE_KEY_PREFIX) || key.length > 200) throw failed(req, deps, 'Invalid API key');
  // The key is hashed here and never leaves the gateway in plain text.
  const keyHash = sha256Hex(key);
  let principal = deps.keyCache.get(keyHash);
  if (!principal) {
    if (deps.keyCache.wasRejected(keyHash)) throw failed(req, deps, 'Invalid API key');
    try {
      principal = await deps.bus.request(KeyVerify, { keyHash });
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'unauthenticated') {
        deps.keyCache.reject(keyHash);
        throw failed(req, deps, 'Invalid API key');
      }
      throw err;
    }
    deps.keyCache.set(keyHash, principal);
  }
  if (!principal.apiAccess) {
    throw new ServiceError(
      'permission_denied',
      `API access needs the Business plan; this account is on the ${principal.plan} plan`,
    );
  }
  return principal;
};

/** The deployment's public sandbox token, compared in constant time. */
const checkSandboxToken = (req: Request, res: Response, deps: GatewayDeps): void => {
  refuseGuessing(req, res, deps);
  const token = bearerOf(req);
  if (!token) {
    throw failed(
      req,
      deps,
      'Missing sandbox token: send "Authorization: Bearer <SANDBOX_TOKEN>" (svc_sandbox_…, shown on /docs)',
    );
  }
  if (token.startsWith(LIVE_KEY_PREFIX)) throw failed(req, deps, LIVE_KEY_ON_SANDBOX);
  if (!sameSecret(token, deps.config.SANDBOX_TOKEN)) {
    throw failed(req, deps, 'Invalid sandbox token: the public token of this deployment is shown on /docs');
  }
};

/** Who has called, for the auth of each kind. */
const callerFor = async (
  kind: AuthKind,
  req: Request,
  res: Response,
  deps: GatewayDeps,
): Promise<CallerOf<AuthKind>> => {
  switch (kind) {
    case 'apiKey':
      return { kind, ...(await apiKeyPrincipal(req, res, deps)) };
    case 'session': {
      const session = await sessionOf(req, deps);
      if (req.method !== 'GET' && req.method !== 'HEAD') checkCsrf(req, deps, session);
      return { kind, ...session };
    }
    case 'sandbox':
      checkSandboxToken(req, res, deps);
      return { kind };
    case 'none':
      return undefined;
  }
};

/**
 * Authenticate a request as its operation asks, and answer who called (`undefined` for public
 * operations). Sets what the rate limit counts by: the API key, or the client IP for the sandbox, the
 * dashboard session and public operations. An `apiKey` operation reads only the Authorization header
 * (a session cookie is ignored entirely); a `session` operation reads only the cookie (an API key is
 * ignored, and its 401 says to sign in).
 */
export const authenticate = async <A extends AuthKind>(
  kind: A,
  req: Request,
  res: Response,
  deps: GatewayDeps,
): Promise<CallerOf<A>> => {
  const caller = await callerFor(kind, req, res, deps);
  res.locals.rateKey = caller?.kind === 'apiKey' ? `key:${caller.keyId}` : `ip:${clientIp(req)}`;
  // `callerFor` answers the caller of `kind`'s own type: `A` is that kind.
  return caller as CallerOf<A>;
};
