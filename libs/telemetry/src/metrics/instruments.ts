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

export const createInstruments = (meter: Meter): Instruments => {
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
      const gauge = meter.createObservableGauge(entryOf(key).name, options(key));
      gauge.addCallback(async (result) => {
        await Promise.resolve(observe((value, labels) => result.observe(value, labels as Attributes))).catch(
          () => undefined,
        );
      });
    },
    observedCounter: (key, observe) => {
      const counter = meter.createObservableCounter(entryOf(key).name, options(key));
      counter.addCallback(async (result) => {
        await Promise.resolve(observe((value, labels) => result.observe(value, labels as Attributes))).catch(
          () => undefined,
        );
      });
    },
  };
};
