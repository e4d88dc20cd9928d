import { z } from 'zod';

/**
 * An integer query parameter from `min` to `max` (query values arrive as text), with one message for
 * every way it can be wrong.
 */
export const intQueryParam = (name: string, min: number, max: number) => {
  const error = `${name} must be an integer from ${min} to ${max}`;
  return z.preprocess(
    (v) => (typeof v === 'string' ? Number(v) : v),
    z.number({ error }).int(error).min(min, error).max(max, error),
  );
};
