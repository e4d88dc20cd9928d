/** Requests counted per key in one window, by this replica since it last told the others. */
export interface CountedHits {
  readonly window: number;
  readonly hits: Record<string, number>;
}

/**
 * Fixed-window request counts per key, shared between gateway replicas: windows are aligned to the
 * clock (every replica agrees where a minute starts), this replica's own hits are handed out with
 * `takeUnsent` to be sent to the others, and theirs come in through `addRemote`. A key's count is its
 * hits on every replica, as far as they have been heard (a few hundred milliseconds behind).
 */
export const createRateCounter = (options: { windowMs: number; now?: () => number }) => {
  const now = options.now ?? Date.now;
  let window = -1;
  let counts = new Map<string, number>();
  let unsent = new Map<string, number>();
  const rollTo = (w: number) => {
    if (w <= window) return;
    window = w;
    counts = new Map();
    unsent = new Map();
  };
  return {
    /** Count one request for `key`; its count in the current window across replicas, and ms to the next. */
    hit(key: string): { count: number; resetMs: number } {
      const t = now();
      rollTo(Math.floor(t / options.windowMs));
      const count = (counts.get(key) ?? 0) + 1;
      counts.set(key, count);
      unsent.set(key, (unsent.get(key) ?? 0) + 1);
      return { count, resetMs: (window + 1) * options.windowMs - t };
    },
    /** The count of `key` in the current window across replicas, without counting a request. */
    count(key: string): { count: number; resetMs: number } {
      const t = now();
      rollTo(Math.floor(t / options.windowMs));
      return { count: counts.get(key) ?? 0, resetMs: (window + 1) * options.windowMs - t };
    },
    /**
     * This replica's hits not yet told to the others, in messages of at most `maxKeys` keys (many
     * client IPs in one interval must not make a message larger than NATS carries).
     */
    takeUnsent(maxKeys = 2000): CountedHits[] {
      rollTo(Math.floor(now() / options.windowMs));
      const entries = [...unsent];
      unsent = new Map();
      const messages: CountedHits[] = [];
      for (let i = 0; i < entries.length; i += maxKeys) {
        messages.push({ window, hits: Object.fromEntries(entries.slice(i, i + maxKeys)) });
      }
      return messages;
    },
    /** Another replica's hits; those of a window that is over are dropped. */
    addRemote(counted: CountedHits): void {
      rollTo(Math.max(counted.window, Math.floor(now() / options.windowMs)));
      if (counted.window !== window) return;
      for (const [key, n] of Object.entries(counted.hits)) counts.set(key, (counts.get(key) ?? 0) + n);
    },
  };
};

export type RateCounter = ReturnType<typeof createRateCounter>;
