import type { RequestHandler } from 'express';
import { sendError } from './errors';
import { clientIp } from './client-info';
import type { RateCounter } from './rate-counter';
import { markRefused } from './request-metrics';

/**
 * Fixed-window limit per API key (or per IP before authentication), counted across gateway replicas
 * (`RateCounter`), with the draft IETF RateLimit headers and Retry-After on 429.
 */
export const rateLimit = (options: { perMinute: number; counter: RateCounter }): RequestHandler => {
  return (req, res, next) => {
    const key = (res.locals.rateKey as string | undefined) ?? `ip:${clientIp(req)}`;
    const { count, resetMs } = options.counter.hit(key);
    const resetSeconds = Math.max(1, Math.ceil(resetMs / 1000));
    res.set('RateLimit-Limit', String(options.perMinute));
    res.set('RateLimit-Remaining', String(Math.max(0, options.perMinute - count)));
    res.set('RateLimit-Reset', String(resetSeconds));
    if (count > options.perMinute) {
      res.set('Retry-After', String(resetSeconds));
      markRefused(res, 'rate_limit');
      return sendError(
        res,
        'rate_limited',
        `Rate limit of ${options.perMinute} requests per minute exceeded`,
      );
    }
    next();
  };
};
