/**
 * Accounts' embed origins for a short while, so that loading an embedded link's page and its recipient
 * view does not ask the key service (`key.get-embed-origins`) every time. Bounded (the oldest entry goes
 * first) and short-lived: a change made through this gateway replaces the entry at once (`put`); one
 * made through another replica is seen here within `ttlMs`.
 */
export interface EmbedOriginsCache {
  /** The account's origins: the cached ones while fresh, else `load`'s (then cached). */
  get(accountId: string, load: () => Promise<readonly string[]>): Promise<readonly string[]>;
  /** The account's origins as just stored or read from the key service: replaces what is cached. */
  put(accountId: string, origins: readonly string[]): void;
  readonly size: number;
}

export const createEmbedOriginsCache = (options: {
  ttlMs: number;
  maxEntries?: number;
  now?: () => number;
}): EmbedOriginsCache => {
  const now = options.now ?? Date.now;
  const max = options.maxEntries ?? 10_000;
  const entries = new Map<string, { origins: readonly string[]; expiresAt: number }>();
  // Bumped by every `put`: a load that started before it must not store the list it read then.
  let version = 0;
  const store = (accountId: string, origins: readonly string[]) => {
    if (options.ttlMs === 0) return;
    entries.delete(accountId);
    if (entries.size >= max) {
      // Maps iterate in insertion order: the first key is the oldest.
      const oldest = entries.keys().next();
      if (!oldest.done) entries.delete(oldest.value);
    }
    entries.set(accountId, { origins: [...origins], expiresAt: now() + options.ttlMs });
  };
  return {
    async get(accountId, load) {
      const entry = entries.get(accountId);
      if (entry && entry.expiresAt > now()) return entry.origins;
      if (entry) entries.delete(accountId);
      const started = version;
      const origins = await load();
      if (version === started) store(accountId, origins);
      return origins;
    },
    put(accountId, origins) {
      version += 1;
      store(accountId, origins);
    },
    get size() {
      return entries.size;
    },
  };
};
