import type { TPrincipal } from '@esign/contracts';

/**
 * Verified keys by SHA-256, so the hot path does not ask the key service on every request.
 * Entries expire after `ttlMs` and are evicted at once when a revocation event arrives.
 */
export interface KeyCache {
  get(keyHash: string): TPrincipal | undefined;
  set(keyHash: string, principal: TPrincipal): void;
  evict(keyHash: string): void;
  readonly size: number;
}

export const createKeyCache = (options: {
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
}): KeyCache => {
  const now = options.now ?? Date.now;
  const max = options.maxEntries ?? 10_000;
  const entries = new Map<string, { principal: TPrincipal; expiresAt: number }>();
  return {
    get(keyHash) {
      const entry = entries.get(keyHash);
      if (!entry) return undefined;
      if (entry.expiresAt <= now()) {
        entries.delete(keyHash);
        return undefined;
      }
      return entry.principal;
    },
    set(keyHash, principal) {
      if (options.ttlMs === 0) return;
      if (entries.size >= max) {
        // Maps iterate in insertion order: the first key is the oldest.
        const oldest = entries.keys().next();
        if (!oldest.done) entries.delete(oldest.value);
      }
      entries.set(keyHash, { principal, expiresAt: now() + options.ttlMs });
    },
    evict: (keyHash) => void entries.delete(keyHash),
    get size() {
      return entries.size;
    },
  };
};
