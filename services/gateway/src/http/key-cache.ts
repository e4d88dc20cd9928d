import type { TPrincipal } from '@esign/contracts';

/**
 * Verified keys by SHA-256, so the hot path does not ask the key service on every request.
 * Entries expire after `ttlMs` and are evicted at once when a revocation event arrives.
 */
export interface KeyCache {
  get(keyHash: string): TPrincipal | undefined;
  set(keyHash: string, principal: TPrincipal): void;
  evict(keyHash: string): void;
  /** Forget every cached key of an account (its plan changed). */
  evictAccount(accountId: string): void;
  /** Remember for a short while that the key service did not know this key. */
  reject(keyHash: string): void;
  /** Whether this key was refused by the key service a moment ago. */
  wasRejected(keyHash: string): boolean;
  readonly size: number;
}

export const createKeyCache = (options: {
  ttlMs: number;
  /** How long an unknown key is remembered as unknown (0: not at all). */
  rejectedTtlMs?: number;
  maxEntries?: number;
  now?: () => number;
}): KeyCache => {
  const now = options.now ?? Date.now;
  const max = options.maxEntries ?? 10_000;
  const entries = new Map<string, { principal: TPrincipal; expiresAt: number }>();
  const rejectedTtl = options.rejectedTtlMs ?? 0;
  // Unknown keys: a new key is a hash nobody has sent before, so remembering misses cannot hide it.
  const rejected = new Map<string, number>();
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
    evictAccount(accountId) {
      for (const [keyHash, entry] of entries) {
        if (entry.principal.accountId === accountId) entries.delete(keyHash);
      }
    },
    reject(keyHash) {
      if (rejectedTtl === 0) return;
      if (rejected.size >= max) {
        const oldest = rejected.keys().next();
        if (!oldest.done) rejected.delete(oldest.value);
      }
      rejected.set(keyHash, now() + rejectedTtl);
    },
    wasRejected(keyHash) {
      const until = rejected.get(keyHash);
      if (until === undefined) return false;
      if (until > now()) return true;
      rejected.delete(keyHash);
      return false;
    },
    get size() {
      return entries.size;
    },
  };
};
