import { createHash } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { KeyVerify, LIVE_KEY_PREFIX, type TPrincipal } from '@esign/contracts';
import type { Bus } from '@esign/bus';
import type { KeyCache } from './key-cache';
import { sendError } from './errors';

export const sha256Hex = (value: string): string => createHash('sha256').update(value).digest('hex');

/** The principal that `requireApiKey` attached to this response. */
export const principalOf = (res: Response): TPrincipal => res.locals.principal as TPrincipal;

/**
 * Bearer API keys: 401 when missing, malformed, unknown or revoked; 403 when the account's plan has no
 * API access. The key is hashed here and never leaves the gateway in plain text.
 */
export const requireApiKey =
  (deps: { bus: Bus; keyCache: KeyCache }): RequestHandler =>
  async (req, res, next) => {
    const header = req.get('authorization');
    const match = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    const key = match?.[1];
    if (!key) {
      return sendError(res, 'unauthenticated', 'Missing API key: send "Authorization: Bearer <API_KEY>"');
    }
    if (!key.startsWith(LIVE_KEY_PREFIX) || key.length > 200) {
      return sendError(res, 'unauthenticated', 'Invalid API key');
    }
    const keyHash = sha256Hex(key);
    let principal = deps.keyCache.get(keyHash);
    if (!principal) {
      try {
        principal = await deps.bus.request(KeyVerify, { keyHash });
      } catch (err) {
        return next(err);
      }
      deps.keyCache.set(keyHash, principal);
    }
    if (!principal.apiAccess) {
      return sendError(
        res,
        'permission_denied',
        `API access needs the Business plan; this account is on the ${principal.plan} plan`,
      );
    }
    res.locals.principal = principal;
    res.locals.rateKey = `key:${principal.keyId}`;
    next();
  };
