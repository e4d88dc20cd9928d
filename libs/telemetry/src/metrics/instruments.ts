import type { Attributes, Meter } from '@opentelemetry/api';
import { METRICS, type LabelsOf, type MetricKey, type MetricKind, type MetricSpec } from './catalog';

type KeyOf<Kind extends MetricKind> = {
  [K in MetricKey]: (typeof METRICS)[K]['kind'] extends Kind ? K : never;
}[MetricKey];

/** The labels a metric may carry: only those its catalog entry declares. */
export type Labels<K extends MetricKey> = Partial<Record<LabelsOf<K>, string>>;

export interface CounterOf<K extends MetricKey> {
  add(value: number, labels?: Labels<K>): void;
}
export interface HistogramOf<K extends MetricKey> {
  record(value: number, labels?: Labels<K>): void;
}
export interface UpDownOf<K extends MetricKey> {
  add(value: number, labels?: Labels<K>): void;
}
/** Reports one value of an observed metric (a gauge, or a counter read from elsewhere). */
export type Observe<K extends MetricKey> = (value: number, labels?: Labels<K>) => void;

/**
 * The instruments of one service, created from the catalog by key, so that a name, unit, bucket set
 * or label can only be what `catalog.ts` says. Create each instrument once, at start-up.
 */
export interface Instruments {
  counter<K extends KeyOf<'counter'>>(key: K): CounterOf<K>;
  histogram<K extends KeyOf<'histogram'>>(key: K): HistogramOf<K>;
  updown<K extends KeyOf<'updown'>>(key: K): UpDownOf<K>;
  /**
   * A gauge read when metrics are collected (a scrape): `observe` reports the current value(s). It
   * may be async (a database count); one that throws reports nothing for that scrape.
   */
  gauge<K extends KeyOf<'gauge'>>(key: K, observe: (report: Observe<K>) => void | Promise<void>): void;
  /** A counter kept elsewhere (the process's CPU time), read when metrics are collected. */
  observedCounter<K extends KeyOf<'counter'>>(
    key: K,
    observe: (report: Observe<K>) => void | Promise<void>,
  ): void;
}

/**
 * How long an observed metric may take to read (a database count) before the scrape goes on without
 * it: a stalled dependency must not stall /metrics (Prometheus would mark the whole process down).
 */
export const OBSERVE_TIMEOUT_MS = 2000;

/** Run `observe` for one collection; what it reports after `timeoutMs`, or after throwing, is dropped. */
const readWithin = async <K extends MetricKey>(
  observe: (report: Observe<K>) => void | Promise<void>,
  result: { observe(value: number, attributes?: Attributes): void },
  timeoutMs: number,
): Promise<void> => {
  let open = true;
  let timer: NodeJS.Timeout | undefined;
  const reading = Promise.resolve()
    .then(() =>
      observe((value, labels) => {
        if (open) result.observe(value, labels);
      }),
    )
    .catch(() => undefined);
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, timeoutMs);
    timer.unref();
  });
  await Promise.race([reading, late]);
  open = false;
  clearTimeout(timer);
};

export const createInstruments = (
  meter: Meter,
  { observeTimeoutMs = OBSERVE_TIMEOUT_MS }: { observeTimeoutMs?: number } = {},
): Instruments => {
  const entryOf = (key: MetricKey): MetricSpec => METRICS[key];
  const options = (key: MetricKey) => {
    const entry = entryOf(key);
    return { unit: entry.unit, description: entry.description };
  };
  return {
    counter: (key) => {
      const counter = meter.createCounter(entryOf(key).name, options(key));
      return { add: (value, labels) => counter.add(value, labels) };
    },
    histogram: (key) => {
      const entry = entryOf(key);
      const histogram = meter.createHistogram(entry.name, {
        ...options(key),
        advice: { explicitBucketBoundaries: [...(entry.buckets ?? [])] },
      });
      return { record: (value, labels) => histogram.record(value, labels) };
    },
    updown: (key) => {
      const counter = meter.createUpDownCounter(entryOf(key).name, options(key));
      return { add: (value, labels) => counter.add(value, labels) };
    },
    gauge: (key, observe) => {
      meter
        .createObservableGauge(entryOf(key).name, options(key))
        .addCallback((result) => readWithin(observe, result, observeTimeoutMs));
    },
    observedCounter: (key, observe) => {
      meter
        .createObservableCounter(entryOf(key).name, options(key))
        .addCallback((result) => readWithin(observe, result, observeTimeoutMs));
    },
  };
};
