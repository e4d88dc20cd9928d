import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/**
 * A service that rehearses its own hot path at start-up (the gateway sends itself requests before it
 * serves) marks those requests with this header and its process's token: tracing records no span for
 * them, so that a warm-up is no trace in anybody's backend.
 */
export const REHEARSAL_HEADER = 'x-esign-rehearsal';

// On globalThis, so that the tracing entry point (loaded with --import) and the service share it.
const TOKEN = Symbol.for('esign.rehearsal-token');
const holder = globalThis as { [TOKEN]?: string };

/** This process's rehearsal token: random, made once, never sent outside the process. */
export const rehearsalToken = (): string => (holder[TOKEN] ??= randomUUID());

/** Whether an incoming request is this process's own rehearsal. */
export const isRehearsal = (req: Pick<IncomingMessage, 'headers'>): boolean =>
  req.headers[REHEARSAL_HEADER] === rehearsalToken();
