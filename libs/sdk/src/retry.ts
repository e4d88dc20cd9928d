/** Retry-After as seconds: either delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined if absent or invalid. */
export const parseRetryAfter = (value: string | null, now = Date.now()): number | undefined => {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
};

/** Longest backoff between two attempts, whatever the attempt number. */
export const MAX_BACKOFF_MS = 8_000;

/**
 * Delay before retry number `attempt` (0 for the first retry): exponential backoff from `baseMs`,
 * capped at MAX_BACKOFF_MS, with jitter (a random 50-100% of it) so that clients that failed together
 * do not come back together; never earlier than the server's Retry-After.
 */
export const retryDelayMs = (
  attempt: number,
  baseMs: number,
  retryAfterSeconds: number | undefined,
  random: () => number = Math.random,
): number => {
  const backoff = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** attempt);
  const jittered = backoff / 2 + (backoff / 2) * random();
  return Math.max(jittered, (retryAfterSeconds ?? 0) * 1000);
};

/** Why a signal aborted, as an Error (its reason when that is one, as `AbortSignal.abort()` gives). */
export const abortReason = (signal: AbortSignal): Error => {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  return Object.assign(new Error('The operation was aborted', { cause: reason }), { name: 'AbortError' });
};

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortReason(signal));
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      if (signal) reject(abortReason(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
