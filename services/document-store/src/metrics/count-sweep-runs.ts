import type { CounterOf } from '@esign/telemetry';

/** The sweeps of document-store, as the `esign.sweep` label names them. */
export type TSweepName = 'signed_objects' | 'signing_requests' | 'envelopes';
/** What a sweep collects, as the `esign.item` label names it. */
export type TSweptItem = 'signed_object' | 'expired_request' | 'original' | 'reminder' | 'expired_envelope';

interface Sweep<R> {
  /** One run; `undefined` when another replica held the sweep. */
  runOnce(now?: Date): Promise<R | undefined>;
}

/**
 * The same sweep, its runs counted in `esign.sweep.runs` (`ok`, `skipped`: another replica held it,
 * `error`) and what each run collected in `esign.sweep.collected`. The counters are created once, by
 * the caller, and shared by the sweeps.
 */
export const countSweepRuns = <R>(options: {
  sweep: Sweep<R>;
  name: TSweepName;
  collected: (result: R) => Partial<Record<TSweptItem, number>>;
  runs: CounterOf<'sweepRuns'>;
  items: CounterOf<'sweepCollected'>;
}): Sweep<R> => {
  const { name, runs, items } = options;
  return {
    async runOnce(now) {
      let result: R | undefined;
      try {
        result = await options.sweep.runOnce(now);
      } catch (err) {
        runs.add(1, { 'esign.sweep': name, 'esign.outcome': 'error' });
        throw err;
      }
      if (result === undefined) {
        runs.add(1, { 'esign.sweep': name, 'esign.outcome': 'skipped' });
        return result;
      }
      runs.add(1, { 'esign.sweep': name, 'esign.outcome': 'ok' });
      for (const [item, count] of Object.entries(options.collected(result))) {
        if (count) items.add(count, { 'esign.sweep': name, 'esign.item': item });
      }
      return result;
    },
  };
};
