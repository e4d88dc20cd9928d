import { z } from 'zod';
import { defineEvent } from './define';

/**
 * Gateway replicas tell each other how many requests they counted per rate-limit key (an API key id,
 * or `ip:<address>` before authentication) in the current fixed window, so that a limit holds across
 * replicas. Sent a few times a second while there is traffic; not kept (a replica that misses one
 * undercounts a little for the rest of the window).
 */
export const RequestsCounted = defineEvent(
  'events.requests.counted',
  z.object({
    /** The sending replica (replicas ignore their own). */
    replica: z.string().min(1),
    /** Window number: floor(epoch milliseconds / window length). */
    window: z.number().int().nonnegative(),
    /** Requests counted since the sender's last message, by key. */
    hits: z.record(z.string(), z.number().int().positive()),
  }),
  { durable: false },
);
