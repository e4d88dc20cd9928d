import type { RequestHandler } from 'express';
import { sendError } from './errors';
import { clientIp } from './client-info';

/**
 * Fixed-window limit per API key (or per IP before authentication), with the draft IETF RateLimit
 * headers and Retry-After on 429. Counts live in this gateway replica.
 */
export const rateLimit = (options: { perMinute: number; now?: () => number }): RequestHandler => {
  const now = options.now ?? Date.now;
  const windowMs = 60_000;
  const windows = new Map<string, { start: number; count: number }>();
  let lastSweep = now();
  return (req, res, next) => {
    const t = now();
    if (t - lastSweep > windowMs) {
      for (const [k, w] of windows) if (t - w.start >= windowMs) windows.delete(k);
      lastSweep = t;
    }
    const key = (res.locals.rateKey as string | undefined) ?? `ip:${clientIp(req)}`;
    let w = windows.get(key);
    if (!w || t - w.start >= windowMs) {
      w = { start: t, count: 0 };
      windows.set(key, w);
    }
    w.count += 1;
    const resetSeconds = Math.max(1, Math.ceil((w.start + windowMs - t) / 1000));
    res.set('RateLimit-Limit', String(options.perMinute));
    res.set('RateLimit-Remaining', String(Math.max(0, options.perMinute - w.count)));
    res.set('RateLimit-Reset', String(resetSeconds));
    if (w.count > options.perMinute) {
      res.set('Retry-After', String(resetSeconds));
      return sendError(
        res,
        'rate_limited',
        `Rate limit of ${options.perMinute} requests per minute exceeded`,
      );
    }
    next();
  };
};
