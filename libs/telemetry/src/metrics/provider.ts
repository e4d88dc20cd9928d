import type { IncomingMessage, ServerResponse } from 'node:http';
import { createNoopMeter } from '@opentelemetry/api';
import { createInstruments, type Instruments } from './instruments';
import { observeRuntime } from './runtime';
import type { ServiceName } from './catalog';
import type { Resource } from '../start-service';

/**
 * How a service exports its metrics: `prometheus` serves them at /metrics on its health port (the
 * default), `otlp` pushes them to an OpenTelemetry collector (OTEL_EXPORTER_OTLP_METRICS_ENDPOINT or
 * OTEL_EXPORTER_OTLP_ENDPOINT, every OTEL_METRIC_EXPORT_INTERVAL ms), `none` records nothing.
 */
export type MetricsExporter = 'prometheus' | 'otlp' | 'none';
export const METRICS_EXPORTERS = ['prometheus', 'otlp', 'none'] as const;

export interface Metrics extends Instruments {
  readonly exporter: MetricsExporter;
  /** Answer a scrape (GET /metrics) in the Prometheus text format; 404 unless exporting to Prometheus. */
  handle(req: IncomingMessage, res: ServerResponse): void;
  shutdown(): Promise<void>;
}

export const startMetrics = async (options: {
  service: ServiceName;
  exporter: MetricsExporter;
}): Promise<Metrics> => {
  const { service, exporter } = options;
  if (exporter === 'none') {
    return {
      exporter,
      ...createInstruments(createNoopMeter()),
      handle: (_req, res) => notServed(res, 'metrics are off (METRICS_EXPORTER=none)'),
      shutdown: () => Promise.resolve(),
    };
  }
  // Loaded only when metrics are on: the SDK stays out of a process that records nothing.
  const [{ MeterProvider, PeriodicExportingMetricReader }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-metrics'),
    import('@opentelemetry/resources'),
  ]);
  const resource = resourceFromAttributes({ 'service.name': service, 'service.namespace': 'esign' });
  let handle: Metrics['handle'];
  let reader;
  if (exporter === 'prometheus') {
    const { PrometheusExporter } = await import('@opentelemetry/exporter-prometheus');
    const prometheus = new PrometheusExporter({ preventServerStart: true, withoutScopeInfo: true });
    reader = prometheus;
    handle = (req, res) => prometheus.getMetricsRequestHandler(req, res);
  } else {
    const { OTLPMetricExporter } = await import('@opentelemetry/exporter-metrics-otlp-http');
    reader = new PeriodicExportingMetricReader({
      exporter: new OTLPMetricExporter(),
      exportIntervalMillis: Number(process.env.OTEL_METRIC_EXPORT_INTERVAL) || 15_000,
    });
    handle = (_req, res) => notServed(res, 'metrics are pushed over OTLP (METRICS_EXPORTER=otlp)');
  }
  const provider = new MeterProvider({ resource, readers: [reader] });
  const instruments = createInstruments(provider.getMeter(`esign.${service}`));
  const stopRuntime = observeRuntime(instruments);
  return {
    exporter,
    ...instruments,
    handle,
    shutdown: async () => {
      stopRuntime();
      await provider.shutdown();
    },
  };
};

const notServed = (res: ServerResponse, message: string) => {
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ error: message }));
};

/** Metrics as the first resource of `startService`: instruments exist before anything records. */
export const metricsResource = (options: {
  service: ServiceName;
  exporter: MetricsExporter;
}): Resource<Metrics> => ({
  name: 'metrics',
  start: () => startMetrics(options),
  stop: (metrics) => metrics.shutdown(),
});
